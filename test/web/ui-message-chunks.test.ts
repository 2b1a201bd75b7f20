import type { AgentEvent } from '../../core/stream-events';
import { UiMessageTranslator, type UiMessageChunk } from '../../web/ui-message-chunks';
import { formatWait, waitOf } from '../../examples/web-chat/src/wait-facts';

// The adapter alone: stream events in, UI message chunks out (the end-to-end files check the chunks against `ai`).

const usage = { inputTokens: 10, outputTokens: 5, costUsd: 0.001 } as unknown as NonNullable<
  Extract<AgentEvent, { type: 'reply' }>['usage']
>;

function run(events: AgentEvent[], translator = new UiMessageTranslator()): UiMessageChunk[] {
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
  const asked = (id: string): AgentEvent => ({
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

it('streams thinking as a reasoning part before the text, and a tool part with its name and arguments (0.3)', () => {
  const chunks = run([
    { type: 'turn_start', turn: 1 },
    { type: 'thinking', call: 'm1', text: 'List the ' },
    { type: 'thinking', call: 'm1', text: 'folder.' },
    { type: 'text', call: 'm1', text: 'Looking.' },
    { type: 'reply', call: 'm1', text: 'Looking.', toolCalls: ['list_directory'], thought: true, thinking: 'List the folder.' },
    { type: 'tool_start', id: 'c1', summary: 'list_directory src', name: 'list_directory', input: { path: 'src' } },
    { type: 'tool_result', id: 'c1', summary: 'list_directory src', isError: false, preview: 'a.ts' },
  ]);
  const reasoning = chunks.find((chunk) => chunk.type === 'reasoning-start') as { id: string };
  expect(chunks.slice(2, 9)).toEqual([
    { type: 'reasoning-start', id: reasoning.id },
    { type: 'reasoning-delta', id: reasoning.id, delta: 'List the ' },
    { type: 'reasoning-delta', id: reasoning.id, delta: 'folder.' },
    { type: 'reasoning-end', id: reasoning.id },
    expect.objectContaining({ type: 'text-start' }),
    expect.objectContaining({ type: 'text-delta', delta: 'Looking.' }),
    expect.objectContaining({ type: 'text-end' }),
  ]);
  const title = 'list_directory src';
  expect(chunks.filter((chunk) => chunk.type.startsWith('tool-input'))).toEqual([
    { type: 'tool-input-start', toolCallId: 'c1', toolName: 'list_directory', title },
    { type: 'tool-input-available', toolCallId: 'c1', toolName: 'list_directory', input: { path: 'src' }, title },
  ]);
});

it('writes thinking that was not streamed whole at the reply; a retry drops streamed thinking; hidden thinking is an empty part', () => {
  const whole = run([
    { type: 'turn_start', turn: 1 },
    { type: 'reply', call: 'm1', text: 'Hi.', toolCalls: [], thought: true, thinking: 'Say hi.' },
  ]);
  expect(whole.filter((chunk) => chunk.type === 'reasoning-delta')).toEqual([expect.objectContaining({ delta: 'Say hi.' })]);

  const retried = run([
    { type: 'turn_start', turn: 1 },
    { type: 'thinking', call: 'm1', text: 'First try' },
    { type: 'reset', call: 'm1', attempt: 2 },
    { type: 'thinking', call: 'm1', text: 'Second' },
    { type: 'reply', call: 'm1', text: '', toolCalls: [], thought: true, thinking: 'Second' },
  ]);
  expect(retried.map((chunk) => chunk.type)).toEqual([
    'start',
    'start-step',
    'reasoning-start',
    'reasoning-delta',
    'reset-step',
    'reasoning-start',
    'reasoning-delta',
    'reasoning-end',
  ]);

  // Redacted (or encrypted) thinking, or an event from before 0.3: that the model thought, never what.
  const hidden = run([
    { type: 'turn_start', turn: 1 },
    { type: 'reply', call: 'm1', text: 'Ok.', toolCalls: [], thought: true },
  ]);
  expect(hidden.filter((chunk) => chunk.type.startsWith('reasoning')).map((chunk) => chunk.type)).toEqual([
    'reasoning-start',
    'reasoning-end',
  ]);
});

it('a tool_start from before 0.3 (no name, no input) still shows a tool part, named from its summary', () => {
  const chunks = run([
    { type: 'turn_start', turn: 1 },
    { type: 'tool_start', id: 'c1', summary: 'read_file a.txt' },
    // An approval request without arguments (older, or a subagent's forwarded up): its summary is the input.
    {
      type: 'approval_requested',
      id: 'sub/c2',
      tool: 'write_file',
      summary: 'write_file b.txt',
      agents: ['a', 'b'],
      askedAt: '',
    },
  ]);
  expect(chunks.filter((chunk) => chunk.type === 'tool-input-available')[1]).toMatchObject({
    toolCallId: 'sub/c2',
    input: { summary: 'write_file b.txt' },
  });
  expect(chunks.find((chunk) => chunk.type === 'tool-input-available')).toEqual({
    type: 'tool-input-available',
    toolCallId: 'c1',
    toolName: 'read_file',
    input: { summary: 'read_file a.txt' },
    title: 'read_file a.txt',
  });
});

it('an approval request with the arguments (0.3) gives the tool part its input before the decision', () => {
  const chunks = run([
    { type: 'turn_start', turn: 1 },
    { type: 'reply', call: 'm1', text: '', toolCalls: ['write_file'] },
    {
      type: 'approval_requested',
      id: 'c1',
      tool: 'write_file',
      summary: 'write_file "a.txt" (2 bytes, 1 line)',
      agents: ['default'],
      askedAt: '',
      input: { path: 'a.txt', content: 'hi' },
    },
  ]);
  const types = chunks.map((chunk) => chunk.type);
  expect(types.indexOf('tool-input-available')).toBeLessThan(types.indexOf('tool-approval-request'));
  expect(chunks.find((chunk) => chunk.type === 'tool-input-available')).toMatchObject({
    toolName: 'write_file',
    input: { path: 'a.txt', content: 'hi' },
  });
});

it('interleaved thinking and text in one reply: each run of them a part of its own, nothing written twice', () => {
  const chunks = run([
    { type: 'turn_start', turn: 1 },
    { type: 'thinking', call: 'm1', text: 'First.' },
    { type: 'text', call: 'm1', text: 'Saying.' },
    { type: 'thinking', call: 'm1', text: '\n\nSecond.' },
    { type: 'reply', call: 'm1', text: 'Saying.', toolCalls: [], thought: true, thinking: 'First.\n\nSecond.' },
  ]);
  expect(chunks.map((chunk) => chunk.type)).toEqual([
    'start',
    'start-step',
    'reasoning-start',
    'reasoning-delta',
    'reasoning-end',
    'text-start',
    'text-delta',
    'text-end',
    'reasoning-start',
    'reasoning-delta',
    'reasoning-end',
  ]);
  const ids = chunks.flatMap((chunk) => (chunk.type.endsWith('-start') && 'id' in chunk ? [chunk.id] : []));
  expect(new Set(ids).size).toBe(3);
});

it('a message sent while another turn streams: the end of that turn is not the end of this response (issue 29, item 6)', () => {
  const translator = new UiMessageTranslator({ kind: 'turn_start' });
  const chunks = run(
    [
      // The turn in progress when the message was sent: its tail, then its end.
      { type: 'text', call: 'm1', text: 'the previous answer' },
      { type: 'reply', call: 'm1', text: 'the previous answer', toolCalls: [] },
      { type: 'turn_end', turn: 1, status: 'completed', answer: 'the previous answer' },
      // The queued message's own turn.
      { type: 'turn_start', turn: 2 },
      { type: 'text', call: 'm2', text: 'The queued answer.' },
      { type: 'reply', call: 'm2', text: 'The queued answer.', toolCalls: [] },
      { type: 'turn_end', turn: 2, status: 'completed', answer: 'The queued answer.' },
    ],
    translator,
  );
  expect(chunks[0]).toEqual({ type: 'start', messageId: 'turn-2', messageMetadata: { turn: 2 } });
  expect(JSON.stringify(chunks)).not.toContain('previous answer');
  expect(chunks.flatMap((chunk) => (chunk.type === 'text-delta' ? [chunk.delta] : []))).toEqual(['The queued answer.']);
  expect(chunks.filter((chunk) => chunk.type === 'finish')).toHaveLength(1);
  expect(translator.ended).toBe(true);
});

describe('a steering message (issue 33)', () => {
  const turnWithSteering: AgentEvent[] = [
    { type: 'turn_start', turn: 2 },
    { type: 'reply', call: 'm1', text: '', toolCalls: ['read_file'] },
    { type: 'tool_start', id: 'c1', summary: 'read_file "alpha.txt"', name: 'read_file', input: { path: 'alpha.txt' } },
    { type: 'tool_result', id: 'c1', summary: 'read_file "alpha.txt"', isError: false, preview: 'alpha' },
    { type: 'steered', turn: 2, iteration: 1, text: 'not that one' },
    { type: 'reply', call: 'm2', text: 'beta, then.', toolCalls: [] },
    { type: 'turn_end', turn: 2, status: 'completed', answer: 'beta, then.' },
  ];

  it('the response following the turn shows where it joined: a data-steered part between the tool and the answer', () => {
    const chunks = run(turnWithSteering);
    const types = chunks.map((chunk) => chunk.type);
    expect(chunks[0]).toMatchObject({ type: 'start', messageId: 'turn-2' });
    expect(types.indexOf('data-steered')).toBeGreaterThan(types.indexOf('tool-output-available'));
    expect(types.indexOf('data-steered')).toBeLessThan(types.indexOf('text-delta'));
    expect(chunks.find((chunk) => chunk.type === 'data-steered')).toEqual({
      type: 'data-steered',
      data: { text: 'not that one', iteration: 1 },
    });
  });

  it("the steering request's response is the turn from there on, a message of its own, without the client's words", () => {
    const chunks = run(turnWithSteering, new UiMessageTranslator({ kind: 'steered', turn: 2 }));
    expect(chunks[0]).toEqual({ type: 'start', messageId: 'turn-2-steered-1', messageMetadata: { turn: 2 } });
    expect(chunks.map((chunk) => chunk.type)).toEqual([
      'start',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'finish-step',
      'finish',
    ]);
  });

  it('a turn that ended first: the response is the next turn, which answers the steering message', () => {
    const chunks = run(
      [
        { type: 'turn_start', turn: 2 },
        { type: 'reply', call: 'm1', text: 'done', toolCalls: [] },
        { type: 'turn_end', turn: 2, status: 'completed', answer: 'done' },
        { type: 'turn_start', turn: 3 },
        { type: 'reply', call: 'm2', text: 'steered answer', toolCalls: [] },
        { type: 'turn_end', turn: 3, status: 'completed', answer: 'steered answer' },
      ],
      new UiMessageTranslator({ kind: 'steered', turn: 2 }),
    );
    expect(chunks[0]).toMatchObject({ type: 'start', messageId: 'turn-3' });
    const deltas = chunks.flatMap((chunk) => (chunk.type === 'text-delta' ? [chunk.delta] : []));
    expect(deltas).toEqual(['steered answer']);
  });
});

it('a call that waits: a data-wait part with what it waits for and until when, which the page shows until the result', () => {
  const wait = {
    callId: 'pay',
    tool: 'wait_for_event',
    reason: 'the invoice must be paid',
    startedAt: '2026-12-03T09:00:00.000Z',
    until: '2026-12-10T09:00:00.000Z',
    event: 'payment.received',
  };
  const chunks = run([
    { type: 'turn_start', turn: 1 },
    { type: 'reply', call: 'm1', text: '', toolCalls: ['wait_for_event'], usage },
    { type: 'tool_start', id: 'pay', summary: 'wait_for_event payment.received', name: 'wait_for_event', input: {} },
    { type: 'waiting', ...wait },
  ]);
  expect(chunks.at(-1)).toEqual({ type: 'data-wait', id: 'wait-pay', data: wait });
  // What the page makes of it (examples/web-chat/src/wait-facts.ts): the event, the moment in UTC, and the reason.
  const shown = waitOf(chunks.at(-1) as { type: string; data: unknown });
  expect(shown).toEqual({ callId: 'pay', event: 'payment.received', reason: 'the invoice must be paid', until: wait.until });
  expect(formatWait(shown!)).toMatch(
    /^Waiting for event payment\.received until Thu, 10 Dec 2026 09:00:00 GMT \(.+\): the invoice must be paid$/,
  );
  expect(formatWait({ callId: 'nap', reason: 'r', until: '2026-12-06T09:00:00.000Z' })).toMatch(/^Sleeping until Sun, 06 Dec/);
  // Data from the wire that is not a wait is not shown as one.
  expect(waitOf({ type: 'data-wait', data: { callId: 'x', until: 'soon' } })).toBeUndefined();
  expect(waitOf({ type: 'data-usage', data: wait })).toBeUndefined();
});
