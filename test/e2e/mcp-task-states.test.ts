import os from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { Client as TemporalClient } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { agentDataConverter } from '../../storage/data-converter';
import { createAgentRegistry } from '../../agents/registry';
import type { AgentResult } from '../../core/result';
import { createAgentMcpServer } from '../../serve/mcp/agent-server';
import { createAgentMcpHttpHandler } from '../../serve/mcp/http-endpoint';
import { agents } from '../fixtures/mcp-served-agents';
import { FakeModelServer, openaiReply, type FakeStep } from '../support/fake-model-server';
import { scriptByPrompt } from '../support/script-by-prompt';
import { connectToTestServer, createTestWorker, uniqueTaskQueue } from '../support/temporal';
import type { TestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';

// agent mcp's server in this process, behind its Streamable HTTP endpoint, and the SDK's own Client: MCP's task states
// (2025-11-25: working, input_required, completed, failed, cancelled) for runs that complete, end otherwise and are
// cancelled; and a quick call's progress, every notification of which must reach the client before its result.

const bed = {} as TestBed;
jest.setTimeout(180_000);
const taskQueue = uniqueTaskQueue('mcp-task-states');
let worker: Worker;
let running: Promise<void>;
let endpoint: ReturnType<typeof createAgentMcpHttpHandler>;
let options: Parameters<typeof createAgentMcpServer>[0];

beforeAll(async () => {
  bed.environment = await connectToTestServer();
  bed.server = await FakeModelServer.start();
  worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv, agents });
  running = worker.run();
  options = {
    client: bed.environment.client,
    taskQueue,
    registry: createAgentRegistry({ agents }),
    agents: ['helper'],
    inputFor: () => ({ agent: 'helper', workspace: os.tmpdir(), stream: false }),
    approvalTimeoutMs: 60_000,
    log: () => undefined,
  };
  endpoint = createAgentMcpHttpHandler({
    authorize: () => 'local',
    serverFor: (principal) => createAgentMcpServer(options, principal),
  });
});
beforeEach(() => bed.server.reset());
afterAll(async () => {
  await endpoint?.close();
  worker?.shutdown();
  await running;
  await bed.server?.close();
  await bed.environment?.teardown();
});
afterEach(() => expect(bed.server.refusals).toEqual([]));

async function mcpClient(served = endpoint): Promise<Client> {
  const client = new Client({ name: 'task-states', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://127.0.0.1:3001/mcp'), {
      fetch: (input, init) => served.handle(new Request(input, init)),
    }),
  );
  return client;
}

/** A model answer held back until the test lets it go. */
function gated(content: string): { step: FakeStep; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { step: { gate, then: openaiReply({ content }) }, release };
}

/** A call made as a task: the task's id, once the server answered with it. */
async function startTask(client: Client, prompt: string): Promise<string> {
  const stream = client.experimental.tasks.callToolStream({ name: 'helper', arguments: { prompt } }, CallToolResultSchema, {
    task: { ttl: 600_000 },
  });
  const created = await stream.next();
  expect(created.value).toMatchObject({ type: 'taskCreated', task: { status: 'working' } });
  return (created.value as { task: { taskId: string } }).task.taskId;
}

it('sends every progress notification of a quick call before its result', async () => {
  scriptByPrompt(bed.server, { 'Quick, please.': [openaiReply({ content: 'Quick.' })] });
  const client = await mcpClient();
  try {
    const progress: Progress[] = [];
    const result = (await client.callTool({ name: 'helper', arguments: { prompt: 'Quick, please.' } }, undefined, {
      onprogress: (entry) => progress.push(entry),
    })) as CallToolResult;
    expect(result.content).toEqual([{ type: 'text', text: 'Quick.' }]);
    const messages = progress.map((entry) => entry.message);
    expect(messages[0]).toMatch(/^run \S+ started/);
    expect(messages).toContain('model answered (iteration 1)');
    // The last line of the run's story: the SDK's Client drops a request's progress that comes after its result.
    expect(messages.at(-1)).toBe('turn 1 ended: completed');
    expect(progress.map((entry) => entry.progress)).toEqual(progress.map((_, index) => index + 1));
  } finally {
    await client.close();
  }
});

it("sends a quick call's last progress before its result when reading the end of the run's stream is slow", async () => {
  // The events a run publishes after the last poll answered are read with a query once it has closed. Here the
  // server's every query takes 8 s, as on a loaded worker: longer than the 5 s agent mcp once gave the stream's end,
  // after which it answered and the SDK's Client dropped the last progress.
  const slowQueries = new TemporalClient({
    connection: bed.environment.connection,
    namespace: bed.environment.namespace,
    dataConverter: agentDataConverter(),
    interceptors: {
      workflow: [
        {
          async query(input, next) {
            await new Promise((resolve) => setTimeout(resolve, 8_000));
            return next(input);
          },
        },
      ],
    },
  });
  const slow = createAgentMcpHttpHandler({
    authorize: () => 'local',
    serverFor: (principal) => createAgentMcpServer({ ...options, client: slowQueries }, principal),
  });
  scriptByPrompt(bed.server, { 'Quick, and slowly read.': [openaiReply({ content: 'Quick.' })] });
  const client = await mcpClient(slow);
  try {
    const progress: Progress[] = [];
    await client.callTool({ name: 'helper', arguments: { prompt: 'Quick, and slowly read.' } }, undefined, {
      onprogress: (entry) => progress.push(entry),
      timeout: 60_000,
    });
    expect(progress.map((entry) => entry.message).at(-1)).toBe('turn 1 ended: completed');
  } finally {
    await client.close();
    await slow.close();
  }
});

it('answers tasks/cancel with the task cancelled, and keeps it cancelled', async () => {
  const slow = gated('never read');
  const received = scriptByPrompt(bed.server, { 'Take your time.': [slow.step] });
  const client = await mcpClient();
  try {
    const taskId = await startTask(client, 'Take your time.');
    await waitFor('the model call', () => received['Take your time.'].length === 1);
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'working' });
    expect(await client.experimental.tasks.cancelTask(taskId)).toMatchObject({ taskId, status: 'cancelled' });
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'cancelled' });
    expect(((await bed.environment.client.workflow.getHandle(taskId).result()) as AgentResult).status).toBe('interrupted');
    // A task that has ended cannot be cancelled again: an error, as MCP says.
    await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/terminal status: cancelled/);
  } finally {
    slow.release();
    await client.close();
  }
});

it('reports a run that ends without completing (an isError result) as a failed task, one that completes as completed', async () => {
  scriptByPrompt(bed.server, {
    'Cut me short.': [openaiReply({ content: 'Half an ans', finishReason: 'length' })],
    'Answer fully.': [openaiReply({ content: 'A full answer.' })],
  });
  const client = await mcpClient();
  try {
    const cut = await startTask(client, 'Cut me short.');
    const whole = await startTask(client, 'Answer fully.');
    await bed.environment.client.workflow.getHandle(cut).result();
    await bed.environment.client.workflow.getHandle(whole).result();
    const cutResult = await client.experimental.tasks.getTaskResult(cut, CallToolResultSchema);
    expect(cutResult.isError).toBe(true);
    expect(await client.experimental.tasks.getTask(cut)).toMatchObject({
      status: 'failed',
      statusMessage: 'the run ended with status truncated',
    });
    expect(await client.experimental.tasks.getTask(whole)).toMatchObject({ status: 'completed' });
  } finally {
    await client.close();
  }
});
