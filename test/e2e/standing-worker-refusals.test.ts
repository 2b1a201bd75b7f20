import { randomUUID } from 'node:crypto';
import { runCli } from '../support/cli';
import { anthropicReply } from '../support/fake-model-server';
import { killSpawnedWorkers, spawnWorker } from '../support/spawned-worker';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';

// A run that cannot start is refused before it starts (exit 2, nothing started) when a worker of the user's own
// stands on the task queue too, not only when the CLI runs its own: the CLI used to leave those checks to its own
// worker, so with a standing one `run` printed "started …", the run failed in prepareRun, and the CLI exited 1.
// The worker here is a separate process with the built-in registry, as `npm run worker` runs.

const bed = useTestBed();
jest.setTimeout(240_000);

let taskQueue: string;
beforeAll(async () => {
  taskQueue = uniqueTaskQueue('standing-refusals');
  await spawnWorker({
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    taskQueue,
    identity: 'standing',
    env: bed.server.providerEnv,
  });
});
afterAll(() => killSpawnedWorkers());
afterEach(() => expect(bed.server.refusals).toEqual([]));

const cli = (args: string[]) => runCli(args, { ...bed.server.providerEnv, AGENT_TASK_QUEUE: taskQueue });

/** Every run ever started on the task queue, by workflow id. */
async function workflowsStarted(): Promise<string[]> {
  const ids: string[] = [];
  for await (const execution of bed.environment.client.workflow.list({ query: `TaskQueue = "${taskQueue}"` }))
    ids.push(execution.workflowId);
  return ids.sort();
}

const badSettings: Array<[string, string[], string]> = [
  [
    'an --approve-tools name in the wrong case',
    ['--approve-tools', 'Write_File'],
    'error: unknown tools to approve: Write_File (did you mean write_file?); registered tools: read_file, write_file',
  ],
  [
    'an --approve-tools MCP server no worker has',
    ['--approve-tools', 'mcp:nosuch'],
    'error: unknown tools to approve: mcp:nosuch',
  ],
  [
    'a prompt cache OpenAI does not offer',
    ['--model', 'openai:gpt-4o-mini', '--prompt-cache', '1h'],
    'modelSettings.promptCache "1h" is not offered by OpenAI',
  ],
];

const commands: Array<[string, (flags: string[]) => string[]]> = [
  ['run', (flags) => ['run', 'hello', ...flags, '--workspace', bed.workspace, '--id', `refused-${randomUUID()}`]],
  ['chat', (flags) => ['chat', ...flags, '--workspace', bed.workspace, '--id', `refused-${randomUUID()}`]],
  ['serve', (flags) => ['serve', '--port', '0', ...flags, '--workspace', bed.workspace]],
];

describe.each(commands)('agent %s with a standing worker', (_command, argsWith) => {
  it.each(badSettings)('refuses %s: exit 2, the reason, nothing started', async (_case, flags, reason) => {
    const refused = await cli(argsWith(flags));
    expect(refused.stderr).toContain(reason);
    expect(refused.code).toBe(2);
    expect(refused.stderr).not.toMatch(/started|serving/);
    expect(await workflowsStarted()).toEqual([]);
    expect(bed.server.requests).toHaveLength(0);
  });
});

describe('agent fork with a standing worker', () => {
  it('refuses a fork its settings could not start with (another model, another agent): exit 2, no fork started', async () => {
    // The source: an Anthropic run that keeps its cache for an hour, which Anthropic offers and OpenAI does not.
    const source = `fork-source-${randomUUID()}`;
    bed.server.enqueue(anthropicReply({ text: 'noted' }));
    const ran = await cli(
      ['run', 'remember this', '--model', 'anthropic:claude-haiku-4-5', '--prompt-cache', '1h'].concat([
        '--workspace',
        bed.workspace,
        '--id',
        source,
      ]),
    );
    expect(ran.code).toBe(0);

    const onOpenAi = await cli(['fork', source, '--model', 'openai:gpt-4o-mini', '--id', `fork-${randomUUID()}`]);
    expect(onOpenAi.stderr).toContain('modelSettings.promptCache "1h" is not offered by OpenAI');
    expect(onOpenAi.code).toBe(2);

    const unknownAgent = await cli(['fork', source, '--agent', 'nobody', '--prompt', 'go on', '--id', `fork-${randomUUID()}`]);
    expect(unknownAgent.stderr).toContain('error: unknown agent "nobody"; registered agents: default');
    expect(unknownAgent.code).toBe(2);

    expect(await workflowsStarted()).toEqual([source]);
    expect(bed.server.requests).toHaveLength(1);
  });
});
