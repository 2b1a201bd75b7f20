import { ApplicationFailure } from '@temporalio/common';
import { withTranscript } from '../../activities/model/with-transcript';
import { MemoryTranscriptStore } from '../../storage/transcript/transcript-store';
import type { Message } from '../../core/messages';
import { notRunResults, toolPairingProblems } from '../../core/tool-pairing';

const call = (id: string) => ({ id, name: 'read_file', arguments: '{"path":"a.txt"}' });
const result = (id: string): Message => ({ role: 'tool', toolCallId: id, toolName: 'read_file', content: 'a', isError: false });
const user: Message = { role: 'user', content: 'read it' };

describe('toolPairingProblems', () => {
  it('accepts a conversation whose every tool call has its one result before the next message', () => {
    expect(
      toolPairingProblems([
        user,
        { role: 'assistant', content: '', toolCalls: [call('c1'), call('c2')] },
        result('c2'),
        result('c1'),
        user,
      ]),
    ).toEqual([]);
  });

  it('names a tool call left without a result, before the next message and at the end', () => {
    expect(toolPairingProblems([user, { role: 'assistant', content: '', toolCalls: [call('c1')] }, user])).toEqual([
      'tool call(s) c1 of message 1 have no result before message 2',
    ]);
    expect(
      toolPairingProblems([user, { role: 'assistant', content: 'cut', toolCalls: [call('c1'), call('c2')] }, result('c1')]),
    ).toEqual(['tool call(s) c2 of message 1 have no result before the end']);
  });

  it('names a result that answers no open call: an orphan, a duplicate, or one after another message', () => {
    expect(toolPairingProblems([user, result('x')])).toEqual(['tool result of message 1 (x) answers no open tool call']);
    expect(
      toolPairingProblems([user, { role: 'assistant', content: '', toolCalls: [call('c1')] }, result('c1'), result('c1')]),
    ).toEqual(['tool result of message 3 (c1) answers no open tool call']);
  });

  it('names two calls sharing an id', () => {
    expect(
      toolPairingProblems([user, { role: 'assistant', content: '', toolCalls: [call('c1'), call('c1')] }, result('c1')]),
    ).toContain('message 1 has two tool calls with id c1');
  });
});

describe('notRunResults', () => {
  it('gives each call one error result, linked by its id, saying why it did not run', () => {
    expect(notRunResults([call('c1'), { ...call('c2'), name: 'write_file' }], 'the reply was refused')).toEqual([
      { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: 'Error: not run: the reply was refused', isError: true },
      { role: 'tool', toolCallId: 'c2', toolName: 'write_file', content: 'Error: not run: the reply was refused', isError: true },
    ]);
  });
});

describe('the model activity', () => {
  it('refuses an unpaired conversation before any request, as a non-retryable ConversationInvariantViolated', async () => {
    let requests = 0;
    const failure = await withTranscript(
      new MemoryTranscriptStore(),
      {
        model: 'openai:test',
        tools: ['read_file'],
        transcript: { baseLength: 0, messages: [user, { role: 'assistant', content: '', toolCalls: [call('c1')] }, user] },
      },
      async () => {
        requests++;
        throw new Error('never called');
      },
    ).catch((error: unknown) => error);
    expect(requests).toBe(0);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({
      type: 'ConversationInvariantViolated',
      nonRetryable: true,
      message: expect.stringContaining('tool call(s) c1 of message 1 have no result before message 2'),
    });
  });
});
