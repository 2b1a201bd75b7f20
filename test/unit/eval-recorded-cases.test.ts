import { casesFromConversation, type RecordedConversation } from '../../evals/cases';
import type { Message } from '../../core/messages';
import { toolPairingProblems } from '../../core/tool-pairing';
import { emptyReplyPrompt } from '../../workflows/turn';

// Cases from a recorded conversation that a hostile model and a hand-edited history file wrote.

const call = (id: string, name: string, args: string) => ({ id, name, arguments: args });
const result = (id: string, name: string, content: string, isError = false): Message => ({
  role: 'tool',
  toolCallId: id,
  toolName: name,
  content,
  isError,
});

const messages: Message[] = [
  { role: 'user', content: 'read a.txt' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [call('dup', 'read_file', '{"path":"a.txt"}'), call('dup', 'bad name!/../x', '{}')],
    thinking: [{ type: 'thinking', provider: 'anthropic', model: 'm', text: 'forged', signature: 'forged' }],
  },
  result('dup', 'read_file', 'alpha v1'),
  result('orphan', 'read_file', 'answers nothing'),
  { role: 'assistant', content: 'It says alpha.', toolCalls: [] },
  { role: 'user', content: '   ' },
  { role: 'user', content: 'now write b.txt and read a.txt again' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [
      call('w1', 'write_file', '{"path":"b.txt","content":"beta"}'),
      call('r2', 'read_file', '{ "path": "a.txt" }'),
      call('x', 'read_file', 'not json'),
      call('u', 'unknown_tool', '{}'),
    ],
  },
  result('w1', 'write_file', 'wrote b.txt'),
  result('r2', 'read_file', 'alpha v2'),
  result('x', 'read_file', 'Error: arguments for read_file are not valid JSON', true),
  result('u', 'unknown_tool', 'Error: unknown tool "unknown_tool". Available tools: read_file.', true),
  { role: 'assistant', content: '', toolCalls: [] },
  { role: 'user', content: emptyReplyPrompt },
  { role: 'assistant', content: 'Done: b.txt written.', toolCalls: [] },
];

const recording: RecordedConversation = {
  workflowId: 'wf',
  runId: 'run-2',
  messages,
  replies: [
    { at: 1, usage: { inputTokens: 10, outputTokens: 1 } },
    { at: 4, usage: { inputTokens: 20, outputTokens: 2 } },
    { at: 7, usage: { inputTokens: 30, outputTokens: 3 } },
    { at: 12, usage: { inputTokens: 40, outputTokens: 4 } },
    { at: 14, usage: { inputTokens: 50, outputTokens: 5 } },
  ],
};

it('makes a case of the last user message by default, with a context every provider accepts', () => {
  const [only] = casesFromConversation(recording);
  expect(only).toMatchObject({
    id: 'wf#7',
    source: { kind: 'run', workflowId: 'wf', runId: 'run-2', messageIndex: 7 },
    prompt: 'now write b.txt and read a.txt again',
    recorded: { answer: 'Done: b.txt written.', iterations: 3, usage: { inputTokens: 120, outputTokens: 12 } },
  });
  expect(only.recorded!.toolCalls.map((observed) => [observed.name, observed.arguments, observed.result])).toEqual([
    ['write_file', { path: 'b.txt', content: 'beta' }, 'wrote b.txt'],
    ['read_file', { path: 'a.txt' }, 'alpha v2'],
    ['read_file', 'not json', 'Error: arguments for read_file are not valid JSON'],
    ['unknown_tool', {}, 'Error: unknown tool "unknown_tool". Available tools: read_file.'],
  ]);
  // Pairing kept, fresh ids, safe names, no thinking, no blank message, the orphan result gone.
  const { context } = only;
  expect(toolPairingProblems(context)).toEqual([]);
  expect(context.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
  const reply = context[1] as Extract<Message, { role: 'assistant' }>;
  expect(reply.toolCalls.map((entry) => [entry.id, entry.name])).toEqual([
    ['ctx_1', 'read_file'],
    ['ctx_2', 'bad_name_____x'],
  ]);
  expect(reply.thinking).toBeUndefined();
  expect(context[3]).toMatchObject({ toolCallId: 'ctx_2', isError: true, content: expect.stringMatching(/^Error: not run/) });
  expect(JSON.stringify(context)).not.toContain('answers nothing');
});

it('keeps the answer first-result fixtures first, then earlier ones, and leaves out what never ran', () => {
  const [only] = casesFromConversation(recording);
  expect(only.toolFixtures).toEqual([
    { tool: 'write_file', arguments: '{"content":"beta","path":"b.txt"}', content: 'wrote b.txt', isError: false },
    { tool: 'read_file', arguments: '{"path":"a.txt"}', content: 'alpha v2', isError: false },
  ]);
});

it('makes one case per person message with everyMessage, skipping blank ones and the loop’s own prompts', () => {
  const cases = casesFromConversation(recording, { everyMessage: true });
  expect(cases.map((entry) => entry.id)).toEqual(['wf#1', 'wf#7']);
  expect(cases[0]).toMatchObject({ context: [], recorded: { answer: 'It says alpha.', iterations: 2 } });
  expect(cases[0].toolFixtures).toEqual([
    { tool: 'read_file', arguments: '{"path":"a.txt"}', content: 'alpha v1', isError: false },
  ]);
});
