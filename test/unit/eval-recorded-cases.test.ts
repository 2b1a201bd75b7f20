import { casesFromConversation } from '../../evals/cases';
import type { Message } from '../../core/messages';
import { hostileRecording as recording } from '../fixtures/hostile-recording';
import { toolPairingProblems } from '../../core/tool-pairing';

// Cases from a recorded conversation that a hostile model and a hand-edited history file wrote.

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
