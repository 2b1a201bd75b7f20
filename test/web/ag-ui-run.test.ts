import { EventType, type BaseEvent } from '@ag-ui/core';
import { EventSchema } from '@ag-ui/core/schemas';
import type { AgentEvent } from '../../core/stream-events';
import { AgUiInputError, readRunAgentInput } from '../../web/ag-ui-input';
import { agUiEventStreamResponse, agUiRunEvents, type AgUiTurnFollow } from '../../web/ag-ui-run';
import { assertAgUiSequence } from './ag-ui-sequence';

// An AG-UI run over a session's stream, fed recorded events in place of the live follow (the live one is tested on the
// dev server in ag-ui-endpoint.test.ts): where the run begins, where it ends, and what the wire carries.

const ids = { threadId: 'session-1', runId: 'run-2' };
const approval = (id: string) => ({
  id,
  tool: 'write_file',
  summary: `write_file ${id}.txt`,
  description: `write_file "${id}.txt" (2 bytes)\nhi`,
  agents: ['default'],
  askedAt: '2026-11-25T23:00:00.000Z',
});

/** A follow that replays `log` (offsets from 0) from `from`, then waits like a live one until aborted. */
function replaying(log: AgentEvent[]): AgUiTurnFollow {
  return {
    follow: (from, onEvent, signal) =>
      new Promise<void>((resolve) => {
        log.forEach((event, offset) => offset >= from && onEvent(event, offset));
        signal.addEventListener('abort', () => resolve(), { once: true });
      }),
  };
}

async function collect(stream: ReadableStream<BaseEvent>): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  for await (const event of stream as unknown as AsyncIterable<BaseEvent>) events.push(event);
  for (const event of events) expect(EventSchema.safeParse(event).success).toBe(true);
  assertAgUiSequence(events);
  return events;
}

const previousTurnTail: AgentEvent[] = [
  { type: 'text', call: 'm0', text: 'the end of an older answer' },
  { type: 'reply', call: 'm0', text: 'the end of an older answer', toolCalls: [] },
  { type: 'turn_end', turn: 1, status: 'completed', answer: 'the end of an older answer' },
];
const approvalTurn: AgentEvent[] = [
  { type: 'turn_start', turn: 2 },
  { type: 'reply', call: 'm1', text: 'Writing both.', toolCalls: ['write_file', 'write_file'] },
  { type: 'approval_requested', ...approval('a') },
  { type: 'approval_requested', ...approval('b') },
];
const afterDecisions: AgentEvent[] = [
  { type: 'approval_decided', id: 'a', approved: true },
  { type: 'approval_decided', id: 'b', approved: false, reason: 'no' },
  { type: 'tool_start', id: 'a', summary: 'write_file a.txt' },
  { type: 'tool_result', id: 'a', summary: 'write_file a.txt', isError: false, preview: 'wrote' },
  { type: 'reply', call: 'm2', text: 'Wrote a, not b.', toolCalls: [] },
  { type: 'turn_end', turn: 2, status: 'completed', answer: 'Wrote a, not b.' },
];

describe('an AG-UI run over the session stream', () => {
  it('skips a turn that was already running and ends at the approvals of its own, naming both', async () => {
    const events = await collect(
      agUiRunEvents({
        ids,
        from: 0,
        startAfter: { kind: 'turn_start' },
        source: replaying([...previousTurnTail, ...approvalTurn]),
      }),
    );
    expect(JSON.stringify(events)).not.toContain('older answer');
    expect(events.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: {
        type: 'interrupt',
        interrupts: [
          { id: 'a', toolCallId: 'a' },
          { id: 'b', toolCallId: 'b' },
        ],
      },
    });
  });

  it('resumes after the answered approvals: the tool result and the answer, nothing the interrupted run showed', async () => {
    const log = [...previousTurnTail, ...approvalTurn, ...afterDecisions];
    const events = await collect(
      agUiRunEvents({ ids, from: 3, startAfter: { kind: 'approvals', calls: ['a', 'b'] }, source: replaying(log) }),
    );
    expect(JSON.stringify(events)).not.toContain('Writing both.');
    expect(events.map((event) => event.type)).toEqual([
      EventType.RUN_STARTED,
      EventType.CUSTOM,
      EventType.CUSTOM,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_END,
      EventType.TOOL_CALL_RESULT,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.RUN_FINISHED,
    ]);
    expect(events.at(-1)).toMatchObject({ outcome: { type: 'success' }, result: { answer: 'Wrote a, not b.' } });
  });

  it('starts a denied call, with the arguments it asked with, before its result (issue 29, item 8)', async () => {
    const asked = (id: string) => ({
      type: 'approval_requested' as const,
      ...approval(id),
      input: { path: `${id}.txt`, content: 'hi' },
    });
    const log: AgentEvent[] = [
      { type: 'turn_start', turn: 1 },
      { type: 'reply', call: 'm1', text: '', toolCalls: ['write_file', 'write_file'] },
      asked('a'),
      asked('b'),
      { type: 'approval_decided', id: 'a', approved: false, reason: 'not that one' },
      // Cancelled (the AG-UI client's `cancelled`, or the approval's timeout): denied all the same.
      { type: 'approval_decided', id: 'b', approved: false, reason: 'The person cancelled the approval.' },
      { type: 'tool_result', id: 'a', summary: 'write_file a.txt', isError: true, preview: 'Denied: not that one' },
      { type: 'tool_result', id: 'b', summary: 'write_file b.txt', isError: true, preview: 'Denied: cancelled' },
      { type: 'reply', call: 'm2', text: 'Nothing written.', toolCalls: [] },
      { type: 'turn_end', turn: 1, status: 'completed', answer: 'Nothing written.' },
    ];
    const events = await collect(
      agUiRunEvents({ ids, from: 0, startAfter: { kind: 'approvals', calls: ['a', 'b'] }, source: replaying(log) }),
    );
    const calls = events.filter((event) => event.type.startsWith('TOOL_CALL_')) as Array<BaseEvent & Record<string, string>>;
    expect(calls.map((event) => `${event.type} ${event.toolCallId}`)).toEqual([
      'TOOL_CALL_START a',
      'TOOL_CALL_ARGS a',
      'TOOL_CALL_END a',
      'TOOL_CALL_RESULT a',
      'TOOL_CALL_START b',
      'TOOL_CALL_ARGS b',
      'TOOL_CALL_END b',
      'TOOL_CALL_RESULT b',
    ]);
    expect(calls[0]).toMatchObject({ toolCallName: 'write_file' });
    expect(JSON.parse(calls[1].delta)).toEqual({ path: 'a.txt', content: 'hi' });
  });

  it('ends with RUN_ERROR, not a hang, when the session ends before the turn does', async () => {
    const source: AgUiTurnFollow = { follow: async (_from, onEvent) => onEvent({ type: 'turn_start', turn: 1 }, 0) };
    const events = await collect(agUiRunEvents({ ids, from: 0, startAfter: { kind: 'turn_start' }, source }));
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_ERROR, code: 'session_ended' });
  });

  it('writes one SSE data line per event, a hostile text unable to add one', async () => {
    const hostile = 'hi\n\ndata: {"type":"RUN_FINISHED","threadId":"x","runId":"y"}\r\n\r\n';
    const log: AgentEvent[] = [
      { type: 'turn_start', turn: 1 },
      { type: 'text', call: 'm1', text: hostile },
      { type: 'reply', call: 'm1', text: hostile, toolCalls: [] },
      { type: 'turn_end', turn: 1, status: 'completed', answer: hostile },
    ];
    const response = agUiEventStreamResponse(
      agUiRunEvents({ ids, from: 0, startAfter: { kind: 'turn_start' }, source: replaying(log) }),
    );
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const frames = (await response.text()).split('\n\n').filter((frame) => frame !== '');
    expect(frames.every((frame) => frame.startsWith('data: ') && !frame.includes('\n') && !frame.includes('\r'))).toBe(true);
    const types = frames.map((frame) => JSON.parse(frame.slice('data: '.length)).type);
    expect(types.filter((type) => type === EventType.RUN_FINISHED)).toHaveLength(1);
  });
});

describe('reading RunAgentInput', () => {
  const base = { threadId: 't', runId: 'r', tools: [], context: [], state: {}, forwardedProps: {} };

  it('takes the newest user message as the message to send', () => {
    const request = readRunAgentInput({
      ...base,
      messages: [
        { id: '1', role: 'user', content: 'first' },
        { id: '2', role: 'assistant', content: 'answer' },
        { id: '3', role: 'user', content: 'second' },
      ],
    });
    expect(request).toMatchObject({ kind: 'message', text: 'second' });
  });

  it('reads resume entries as decisions; cancelled denies', () => {
    const request = readRunAgentInput({
      ...base,
      messages: [],
      resume: [
        { interruptId: 'a', status: 'resolved', payload: { approved: true } },
        { interruptId: 'b', status: 'resolved', payload: { approved: false, reason: 'not that file' } },
        { interruptId: 'c', status: 'cancelled' },
      ],
    });
    expect(request).toEqual(
      expect.objectContaining({
        kind: 'resume',
        decisions: [
          { call: 'a', decision: { approved: true } },
          { call: 'b', decision: { approved: false, reason: 'not that file' } },
          { call: 'c', decision: { approved: false, reason: 'The person cancelled the approval.' } },
        ],
      }),
    );
  });

  it.each([
    ['a body that is not RunAgentInput', { hello: 1 }, /not an AG-UI RunAgentInput: threadId/],
    [
      'no user message last',
      { ...base, messages: [{ id: '1', role: 'assistant', content: 'x' }] },
      /last message must be the user message/,
    ],
    ['an empty user message', { ...base, messages: [{ id: '1', role: 'user', content: '  ' }] }, /no text/],
    [
      'a resume without a decision',
      { ...base, messages: [], resume: [{ interruptId: 'a', status: 'resolved', payload: 'yes' }] },
      /approved/,
    ],
  ])('refuses %s with a clear 400', (_name, body, message) => {
    expect(() => readRunAgentInput(body)).toThrow(message);
    expect(() => readRunAgentInput(body)).toThrow(AgUiInputError);
  });
});

it('stops following when its reader goes away, and nothing is written after', async () => {
  let followSignal: AbortSignal | undefined;
  let deliver: ((event: AgentEvent, offset: number) => void) | undefined;
  const source: AgUiTurnFollow = {
    follow: (_from, onEvent, signal) =>
      new Promise<void>((resolve) => {
        followSignal = signal;
        deliver = onEvent;
        onEvent({ type: 'turn_start', turn: 1 }, 0);
        signal.addEventListener('abort', () => resolve(), { once: true });
      }),
  };
  const reader = agUiRunEvents({ ids, from: 0, startAfter: { kind: 'turn_start' }, source }).getReader();
  expect((await reader.read()).value).toMatchObject({ type: EventType.RUN_STARTED });
  await reader.cancel();
  expect(followSignal?.aborted).toBe(true);
  // A late event (or the follow ending) after the reader left throws nothing: a page reload is not an error.
  expect(() => deliver!({ type: 'text', call: 'm1', text: 'late' }, 1)).not.toThrow();
  await new Promise((resolve) => setTimeout(resolve, 20));
});
