import type { StreamEvent } from '../../core/stream-events';
import { UiMessageTranslator, type UiMessageChunk } from '../../web/ui-message-chunks';

// The adapter alone: stream events in, UI message chunks out (the end-to-end files check the chunks against `ai`).

const usage = { inputTokens: 10, outputTokens: 5, costUsd: 0.001 } as unknown as NonNullable<
  Extract<StreamEvent, { type: 'reply' }>['usage']
>;

function run(events: StreamEvent[], translator = new UiMessageTranslator()): UiMessageChunk[] {
  return events.flatMap((event) => translator.translate(event));
}

it('a retried model call: reset-step drops the partial text, the new attempt writes in a text part of its own', () => {
  const chunks = run([
    { type: 'turn_start', turn: 3 },
    { type: 'text', call: 'm1', text: 'The quick' },
    { type: 'reset', call: 'm1', attempt: 2 },
    { type: 'text', call: 'm1', text: 'The quick brown fox.' },
    { type: 'reply', call: 'm1', text: 'The quick brown fox.', toolCalls: [], usage },
    { type: 'turn_end', turn: 3, status: 'completed', answer: 'The quick brown fox.', usage },
  ]);
  expect(chunks.map((chunk) => chunk.type)).toEqual([
    'start',
    'start-step',
    'text-start',
    'text-delta',
    'reset-step',
    'text-start',
    'text-delta',
    'text-end',
    'data-usage',
    'finish-step',
    'data-usage',
    'finish',
  ]);
  expect(chunks[0]).toEqual({ type: 'start', messageId: 'turn-3', messageMetadata: { turn: 3 } });
  const ids = chunks.flatMap((chunk) => (chunk.type === 'text-start' ? [chunk.id] : []));
  expect(new Set(ids).size).toBe(2);
});

it('a reply whose text was not streamed, or not as answered, is written whole from the reply', () => {
  const chunks = run([
    { type: 'turn_start', turn: 1 },
    { type: 'text', call: 'm1', text: 'Wrong sta' },
    { type: 'reply', call: 'm1', text: 'Right answer.', toolCalls: [] },
  ]);
  const deltas = chunks.flatMap((chunk) => (chunk.type === 'text-delta' ? [chunk.delta] : []));
  expect(deltas).toEqual(['Wrong sta', 'Right answer.']);
  expect(chunks.map((chunk) => chunk.type)).toContain('reset-step');
});

it('an approval continuation sends nothing the client has, and starts after the approvals it answered', () => {
  const translator = new UiMessageTranslator({ kind: 'approvals', calls: ['c1', 'c2'] });
  const asked = (id: string): StreamEvent => ({
    type: 'approval_requested',
    id,
    tool: 'write_file',
    summary: `write_file ${id}`,
    agents: ['a'],
    askedAt: '',
  });
  const chunks = run(
    [
      { type: 'turn_start', turn: 2 },
      { type: 'reply', call: 'm1', text: 'Writing.', toolCalls: ['write_file', 'write_file'] },
      asked('c1'),
      asked('c2'),
      { type: 'approval_decided', id: 'c1', approved: true },
      { type: 'approval_decided', id: 'c2', approved: false, reason: 'no' },
      { type: 'tool_start', id: 'c1', summary: 'write_file c1' },
      { type: 'tool_result', id: 'c1', summary: 'write_file c1', isError: false, preview: 'wrote' },
      { type: 'tool_result', id: 'c2', summary: 'write_file c2', isError: true, preview: 'denied' },
    ],
    translator,
  );
  expect(chunks).toEqual([
    { type: 'start', messageId: 'turn-2', messageMetadata: { turn: 2 } },
    { type: 'tool-approval-response', approvalId: 'c1', approved: true },
    { type: 'tool-approval-response', approvalId: 'c2', approved: false, reason: 'no' },
    { type: 'tool-output-denied', toolCallId: 'c2' },
    { type: 'tool-output-available', toolCallId: 'c1', output: 'wrote' },
  ]);
});
