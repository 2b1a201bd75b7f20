import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cliCommandLine, cliEnvironment } from '../support/cli';
import { uniqueTaskQueue } from '../support/temporal';
import { Terminal } from '../support/terminal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';
import { evalResponder } from '../evals/eval-support';

// What a person sees of `agent eval` in a real pseudo-terminal (tmux): a line per pair as it ends, then the table,
// one row per candidate, read off the screen after the terminal interpreted every byte; and the exit code.

const bed = useTestBed();
jest.setTimeout(120_000);
let terminal: Terminal | undefined;
afterEach(() => terminal?.close());

it('shows each pair as it ends and a table of score, passed, cost and worse per candidate', async () => {
  bed.server.respondWith(evalResponder);
  const workspace = await makeWorkspace();
  const dataset = path.join(workspace, 'cases.jsonl');
  await writeFile(
    dataset,
    [
      JSON.stringify({ id: 'refund', input: 'can I get a refund?', expect: [{ type: 'contains', value: 'REFUND' }] }),
      JSON.stringify({ id: 'hours', input: 'when are you open?', expect: [{ type: 'contains', value: 'REFUND' }] }),
    ].join('\n'),
  );
  const env = cliEnvironment({ ...bed.server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('eval-terminal') });
  const command = cliCommandLine([
    'eval',
    '--dataset',
    dataset,
    '--candidate',
    'yes: model=openai:gpt-4o-mini; instructions=Answer briefly.',
    '--candidate',
    'no: model=openai:gpt-4o-mini; instructions=Say no.',
    '--workspace',
    workspace,
    '--tools',
    'refuse',
    '--concurrency',
    '1',
  ]);
  terminal = await Terminal.start(command, env);
  await waitFor('the table', async () => (await terminal!.screen()).includes('candidate  score'), { timeoutMs: 90_000 });
  const screen = await terminal.screen();
  const lines = screen.split('\n').map((line) => line.trimEnd());
  expect(lines).toEqual(
    expect.arrayContaining([
      '✓ refund · yes: score 1.00 ($0.000027)',
      '✓ hours · yes: score 1.00 ($0.000027)',
      '✗ refund · no: score 0.00 ($0.000027)',
      '✗ hours · no: score 0.00 ($0.000027)',
      'candidate  score  passed  cost       worse',
      'yes        1.00   2/2     $0.000054  0',
      'no         0.00   0/2     $0.000054  0',
    ]),
  );
  if (process.env.EVAL_SCREEN) process.stderr.write(`${screen}\n`);
});
