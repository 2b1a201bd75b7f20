import { cliCommandLine, cliEnvironment } from '../support/cli';
import { openaiError, openaiReply } from '../support/fake-model-server';
import { chatCompletionEvents } from '../support/stream-events';
import { uniqueTaskQueue } from '../support/temporal';
import { Terminal } from '../support/terminal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// What a person sees in `agent chat --stream`: the real CLI in a real pseudo-terminal (tmux), three messages typed,
// the screen read after the terminal has interpreted every byte. One message's model call fails once with a 500; one
// uses a tool; one has its model call cut off mid-answer and retried, the new attempt writing the answer again.

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

let terminal: Terminal | undefined;
afterEach(() => terminal?.close());

const model = 'openai:gpt-4o-mini';
const greeting = 'Hello! I am here to help with your files.';
const fileAnswer = 'The file alpha.txt says alpha, and nothing more.';
const sentence = 'The quick brown fox jumps over the lazy dog, and then it naps in the warm afternoon sun.';

const count = (text: string, part: string) => text.split(part).length - 1;

it('shows each answer once, each tool call once, a retried call without its partial text twice, and no earlier turn again', async () => {
  const workspace = await makeWorkspace({ 'alpha.txt': 'alpha' });
  const streamed = { intervalMs: 40 };
  const cutOff = chatCompletionEvents((openaiReply({ content: sentence }) as { json: unknown }).json, true).slice(0, 8);
  bed.server.enqueue(
    // Message 1: the first attempt fails with a 500, the second answers.
    openaiError(500, 'The server had an error'),
    { ...openaiReply({ content: greeting }), stream: streamed },
    // Message 2: a tool call, then the answer.
    {
      ...openaiReply({ content: 'Let me look.', toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
      stream: streamed,
    },
    { ...openaiReply({ content: fileAnswer }), stream: streamed },
    // Message 3: seven words, then the response ends unfinished; the retry writes the whole answer.
    { events: cutOff, stream: { intervalMs: 100 } },
    { ...openaiReply({ content: sentence }), stream: streamed },
  );
  const env = cliEnvironment({ ...bed.server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('terminal-chat') });
  terminal = await Terminal.start(cliCommandLine(['chat', '--stream', '--workspace', workspace, '--model', model]), env);
  const screen = () => terminal!.screen();
  const replies = async () => count(await screen(), ' model call(s), ');
  await waitFor('the chat to be ready', async () => (await screen()).includes('started; type a message'), { timeoutMs: 60_000 });

  for (const [index, message] of ['hello', 'what does alpha.txt say?', 'tell me about the fox'].entries()) {
    await terminal.typeLine(message);
    await waitFor(`the reply to message ${index + 1}`, async () => (await replies()) === index + 1, { timeoutMs: 60_000 }).catch(
      async (error: Error) => {
        throw new Error(`${error.message}; the screen:\n${await screen()}`);
      },
    );
  }
  const shown = await screen();
  await terminal.typeLine('/end');
  await waitFor('the session to end', async () => /session \S+ ended/.test(await screen()), { timeoutMs: 60_000 });
  const final = await screen();

  // Each answer once, whole. The cut-off attempt's text stays where it stopped, the retry's notice goes below it, and
  // the sentence then reads whole on the next line (the retry repeated the start, which is not printed a third time):
  // a notice never splits a sentence in two halves around it.
  for (const answer of [greeting, 'Let me look.', fileAnswer, sentence]) expect(count(final, answer)).toBe(1);
  expect(final).toMatch(
    /\nThe quick brown fox jumps over the *\nmodel call failed \(attempt 1, [^)]*stream ended before the reply was finished\); retrying in \d+ s\nThe quick brown fox jumps over the lazy dog/,
  );
  expect(count(final, 'The quick')).toBe(2);
  expect(final).not.toMatch(/wrote something else/);
  // Each tool call once, and one line per model call: the earlier turns' lines are not printed again with each
  // message, and iterations count within a turn (turn 2 has two).
  expect(count(final, '✓ read_file alpha.txt')).toBe(1);
  const callLines = final.split('\n').filter((line) => line.includes(` · ${model} `));
  expect(callLines).toEqual([
    expect.stringMatching(/^iteration 1 · openai:gpt-4o-mini answered \(100 in \/ 20 out tokens, \$0\.000027\) · on attempt 2$/),
    expect.stringMatching(/^iteration 1 · openai:gpt-4o-mini asked for read_file \(100 in \/ 20 out tokens, \$0\.000027\)$/),
    expect.stringMatching(/^iteration 2 · openai:gpt-4o-mini answered \(100 in \/ 20 out tokens, \$0\.000027\)$/),
    expect.stringMatching(/^iteration 1 · openai:gpt-4o-mini answered \(100 in \/ 20 out tokens, \$0\.000027\) · on attempt 2$/),
  ]);
  // In the order they happened: the answer as written, its model call's line, then the reply's totals.
  const lines = shown.split('\n');
  const at = (text: string) => lines.findIndex((line) => line.includes(text));
  expect(at(greeting)).toBeLessThan(at('(1 model call(s), 100 input / 20 output tokens'));
  expect(at('Let me look.')).toBeLessThan(at('✓ read_file alpha.txt'));
  expect(at('✓ read_file alpha.txt')).toBeLessThan(at(fileAnswer));
  expect(at(fileAnswer)).toBeLessThan(at('(2 model call(s), 200 input / 40 output tokens'));
  expect(lines[at(sentence)]).toBe(sentence);
  // Two attempts for messages 1 and 3, two calls for message 2: six requests, all answered as scripted.
  expect(bed.server.requests).toHaveLength(6);
});
