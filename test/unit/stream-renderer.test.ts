import type { PendingApproval } from '../../core/result';
import { isEvalEvent, type AgentEvent, type EvalEvent, type StreamEvent } from '../../core/stream-events';
import { StreamRenderer, type RenderOptions } from '../../cli/stream-renderer';

// What `agent run`, `chat` and `watch` print from a run's stream, fed events as plain objects: stdout (the text) and
// stderr (lines) as a terminal would show them, interleaved in the order they were written.

const usage = { inputTokens: 100, outputTokens: 20, costUsd: 0.000027 };

function render(events: AgentEvent[], options: Partial<RenderOptions> = {}, after?: (renderer: StreamRenderer) => void) {
  let stdout = '';
  let screen = '';
  const renderer = new StreamRenderer(
    {
      text: (piece) => {
        stdout += piece;
        screen += piece;
      },
      line: (line) => (screen += `${line}\n`),
      progress: (line) => (screen += `${line}\n`),
    },
    { text: true, marks: false, ...options },
  );
  for (const event of events) renderer.handle(event);
  after?.(renderer);
  return { stdout, screen, renderer };
}

const turn = (number: number, answer: string, call: string, extra: AgentEvent[] = []): AgentEvent[] => [
  { type: 'turn_start', turn: number, agent: 'default' },
  ...extra,
  { type: 'text', call, text: answer.slice(0, 5) },
  { type: 'text', call, text: answer.slice(5) },
  {
    type: 'reply',
    call,
    text: answer,
    toolCalls: [],
    iteration: extra.some((event) => event.type === 'reply') ? 2 : 1,
    model: 'openai:gpt-4o-mini',
    usage,
  },
  { type: 'turn_end', turn: number, status: 'completed', answer, iterations: 1, usage },
];

const toolRound = (call: string): AgentEvent[] => [
  { type: 'text', call, text: 'Let me look.' },
  { type: 'reply', call, text: 'Let me look.', toolCalls: ['read_file'], iteration: 1, model: 'openai:gpt-4o-mini', usage },
  { type: 'tool_start', id: 'c1', summary: 'read_file alpha.txt' },
  { type: 'tool_result', id: 'c1', summary: 'read_file alpha.txt', isError: false, preview: 'alpha!' },
];

it('prints the text as it is written, a line per model call with its iteration, usage and cost, and each tool result once', () => {
  const { stdout, screen } = render(turn(1, 'The file says alpha!', 'r-2', toolRound('r-1')));
  expect(stdout).toBe('Let me look.\nThe file says alpha!\n');
  expect(screen).toBe(
    [
      'Let me look.',
      'iteration 1 · openai:gpt-4o-mini asked for read_file (100 in / 20 out tokens, $0.000027)',
      '  ✓ read_file alpha.txt',
      'The file says alpha!',
      'iteration 2 · openai:gpt-4o-mini answered (100 in / 20 out tokens, $0.000027)',
      '',
    ].join('\n'),
  );
});

it("counts iterations within each turn, from the reply's own number or, for older events without it, by counting", () => {
  const older = (events: AgentEvent[]) =>
    events.map((event) =>
      event.type === 'reply' ? { type: event.type, call: event.call, text: event.text, toolCalls: event.toolCalls } : event,
    );
  const { screen } = render([
    ...turn(1, 'first answer', 'a-1', toolRound('a-0')),
    ...older(turn(2, 'second answer', 'b-2', toolRound('b-1'))),
  ]);
  const callLines = screen.split('\n').filter((line) => / (answered|asked for)/.test(line));
  expect(callLines).toEqual([
    'iteration 1 · openai:gpt-4o-mini asked for read_file (100 in / 20 out tokens, $0.000027)',
    'iteration 2 · openai:gpt-4o-mini answered (100 in / 20 out tokens, $0.000027)',
    // What an event of an older run does not say is not made up.
    'iteration 1 · the model asked for read_file',
    'iteration 2 · the model answered',
  ]);
});

it('shows the answer once when the reply came back before the stream told the turn, and announces no retry', () => {
  const { stdout, screen } = render([], {}, (renderer) => {
    // The chat's reply arrived first: the answer is shown from it.
    renderer.complete('Hello there, person.', 1);
    for (const event of turn(1, 'Hello there, person.', 'c-1')) renderer.handle(event);
    // The next turn's text is shown again as it is written.
    for (const event of turn(2, 'Second one.', 'c-2')) renderer.handle(event);
    renderer.complete('Second one.', 2);
  });
  expect(stdout).toBe('Hello there, person.\nSecond one.\n');
  expect(screen).not.toMatch(/retried/);
});

it('shows the answer from the reply when the stream had shown part of it, then nothing of that turn again', () => {
  const { stdout } = render(
    [
      { type: 'turn_start', turn: 1 },
      { type: 'text', call: 'c-1', text: 'Hello ' },
    ],
    {},
    (renderer) => {
      renderer.complete('Hello there.', 1);
      renderer.handle({ type: 'text', call: 'c-1', text: 'there.' });
      renderer.handle({ type: 'reply', call: 'c-1', text: 'Hello there.', toolCalls: [] });
      renderer.handle({ type: 'turn_end', turn: 1, status: 'completed', answer: 'Hello there.' });
    },
  );
  expect(stdout).toBe('Hello there.\n');
});

it('a retried call that writes the same text again leaves no partial text twice, and its line says which attempt answered', () => {
  const sentence = 'The quick brown fox jumps over the lazy dog.';
  const { stdout, screen } = render([
    { type: 'turn_start', turn: 1 },
    { type: 'text', call: 'c-1', text: 'The quick ' },
    { type: 'text', call: 'c-1', text: 'brown' },
    { type: 'reset', call: 'c-1', attempt: 2 },
    { type: 'text', call: 'c-1', text: 'The quick' },
    { type: 'text', call: 'c-1', text: ' brown fox jumps' },
    { type: 'text', call: 'c-1', text: ' over the lazy dog.' },
    { type: 'reply', call: 'c-1', text: sentence, toolCalls: [], iteration: 1, model: 'openai:gpt-4o-mini', usage },
    { type: 'turn_end', turn: 1, status: 'completed', answer: sentence },
  ]);
  expect(stdout).toBe(`${sentence}\n`);
  expect(screen).toBe(
    `${sentence}\niteration 1 · openai:gpt-4o-mini answered (100 in / 20 out tokens, $0.000027) · on attempt 2\n`,
  );
});

it('a retried call that writes something else says so, and shows its new text whole', () => {
  const { screen } = render([
    { type: 'turn_start', turn: 1 },
    { type: 'text', call: 'c-1', text: 'Paris is' },
    { type: 'reset', call: 'c-1', attempt: 3 },
    { type: 'text', call: 'c-1', text: 'The capital is Paris.' },
    { type: 'reply', call: 'c-1', text: 'The capital is Paris.', toolCalls: [] },
    { type: 'turn_end', turn: 1, status: 'completed', answer: 'The capital is Paris.' },
  ]);
  expect(screen.split('\n').slice(0, 3)).toEqual([
    'Paris is',
    '↻ the model call was retried (attempt 3) and wrote something else; its text again:',
    'The capital is Paris.',
  ]);
});

it("shows a watcher the turn marks, tool calls, approvals and a failed turn; a watcher's lines are its story", () => {
  const request: PendingApproval = {
    id: 'w1',
    tool: 'write_file',
    summary: 'write_file "a.txt"',
    description: 'write_file "a.txt" (1 byte)\n  │ x',
    agents: ['default'],
    askedAt: '2026-01-01T00:00:00Z',
  };
  const { screen } = render(
    [
      { type: 'turn_start', turn: 1 },
      { type: 'reply', call: 'c-1', text: '', toolCalls: ['write_file'], iteration: 1 },
      { type: 'tool_start', id: 'w1', summary: 'write_file "a.txt"' },
      { type: 'approval_requested', ...request },
      { type: 'approval_decided', id: 'w1', approved: false, reason: 'denied by a person' },
      { type: 'tool_result', id: 'w1', summary: 'write_file "a.txt"', isError: true, preview: 'not run: denied by a person' },
      { type: 'handoff', from: 'triage', to: 'billing' },
      { type: 'turn_end', turn: 1, status: 'failed', answer: '', error: 'openai rejected the request (HTTP 400): too long' },
    ],
    { marks: true },
  );
  expect(screen.split('\n')).toEqual([
    '── turn 1',
    'iteration 1 · the model asked for write_file',
    '  → write_file "a.txt"',
    '  ? waiting for approval (call w1):',
    '    write_file "a.txt" (1 byte)',
    '      │ x',
    '  ✗ not approved (denied by a person): call w1',
    '  ✗ write_file "a.txt": not run: denied by a person',
    'handed over from triage to billing',
    '── turn 1 failed and was rolled back: openai rejected the request (HTTP 400): too long',
    '',
  ]);
});

it('hands approval requests and decisions to whoever takes them, instead of printing them', () => {
  const requested: string[] = [];
  const decided: string[] = [];
  const request: PendingApproval = {
    id: 'w1',
    tool: 'write_file',
    summary: 'write_file "a.txt"',
    agents: ['default'],
    askedAt: '2026-01-01T00:00:00Z',
  };
  const { screen } = render(
    [
      { type: 'approval_requested', ...request },
      { type: 'approval_decided', id: 'w1', approved: true },
    ],
    { approvals: { requested: (asked) => requested.push(asked.id), decided: (id) => decided.push(id) } },
  );
  expect(requested).toEqual(['w1']);
  expect(decided).toEqual(['w1']);
  expect(screen).toBe('');
});

it('shows a hostile model’s terminal escapes and bidi overrides as text, even when one is split across two pieces', () => {
  const { stdout, screen } = render([
    { type: 'turn_start', turn: 1 },
    { type: 'text', call: 'c-1', text: 'fine\u001b' },
    { type: 'text', call: 'c-1', text: '[2K\rapprove? \u001b]52;c;ZXZpbA==\u0007 \u202egnp.exe\r\n\tcode' },
    { type: 'reply', call: 'c-1', text: 'x', toolCalls: ['read_file'], model: 'evil\u001b[31m' },
    { type: 'tool_result', id: 'c1', summary: 'read_file a', isError: true, preview: 'oops\u001b[2J' },
  ]);
  for (const obeyed of ['\u001b', '\u0007', '\u202e', '\r']) expect(screen).not.toContain(obeyed);
  expect(stdout).toContain('fine\\u{001B}[2K\\rapprove? \\u{001B}]52;c;ZXZpbA==\\u{0007} \\u{202E}gnp.exe\n\tcode');
  expect(screen).toContain('evil\\u{001B}[31m asked for read_file');
  expect(screen).toContain('  ✗ read_file a: oops\\u{001B}[2J');
});

it('shows where a steering message joined the turn, its words escaped (a person typed them, a terminal shows them)', () => {
  const { screen } = render([
    { type: 'turn_start', turn: 1, agent: 'default' },
    { type: 'steered', turn: 1, iteration: 0, text: 'first this' },
    { type: 'steered', turn: 1, iteration: 2, text: 'not that file\n\u001b[2Kgo' },
  ]);
  expect(screen).toBe(
    '  ↪ steering taken before the first model call: first this\n' +
      '  ↪ steering taken after model call 2: not that file\n\\u{001B}[2Kgo\n',
  );
});

it('tells an eval’s pairs and its end, and `agent watch` tells an eval’s events from a run’s', () => {
  const evalStream: EvalEvent[] = [
    { type: 'eval_pair_start', case: 'case-3', candidate: 'cheaper', workflowId: 'eval-1/case-3/cheaper' },
    { type: 'eval_pair_end', case: 'case-3', candidate: 'cheaper', status: 'completed', score: 1, pass: true, costUsd: 0.000054 },
    { type: 'eval_pair_start', case: 'case-3', candidate: 'recorded', workflowId: '' },
    { type: 'eval_pair_end', case: 'case-3', candidate: 'recorded', status: 'failed', score: 0, pass: false, error: 'gone' },
    { type: 'eval_end', pairs: 2, notRun: 4, stopped: 'budget' },
  ];
  const shown = (marks: boolean) =>
    render([], { marks }, (renderer) => evalStream.forEach((event) => renderer.handleEval(event))).screen;
  expect(shown(true)).toBe(
    '▸ case-3 · cheaper (eval-1/case-3/cheaper)\n' +
      '✓ case-3 · cheaper: score 1.00 ($0.000054)\n' +
      '▸ case-3 · recorded\n' +
      '✗ case-3 · recorded: score 0.00 [failed: gone]\n' +
      'eval stopped by its budget: 2 pairs, 4 not run\n',
  );
  // `agent eval` shows no marks: each pair once, when it is scored.
  expect(shown(false)).not.toContain('▸');

  const runStream: StreamEvent[] = turn(1, 'hi', 'c-1');
  expect(evalStream.every(isEvalEvent)).toBe(true);
  expect(runStream.some(isEvalEvent)).toBe(false);
  // An event of a newer build is no eval's: the run's renderer gets it, and passes over it.
  expect(isEvalEvent({ type: 'eval_something_new' } as unknown as StreamEvent)).toBe(false);
  expect(isEvalEvent({ type: 'toString' } as unknown as StreamEvent)).toBe(false);
});
