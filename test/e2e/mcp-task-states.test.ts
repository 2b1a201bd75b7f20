import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  Client as ModernClient,
  PROTOCOL_VERSION_META_KEY,
  StreamableHTTPClientTransport as ModernHttpTransport,
  type InputRequiredResult,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  type CallToolResult,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { Client as TemporalClient } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { agentDataConverter } from '../../storage/data-converter';
import { createAgentRegistry } from '../../agents/registry';
import type { AgentResult } from '../../core/result';
import { createAgentMcpServer } from '../../serve/mcp/agent-server';
import { createAgentMcpHttpHandler } from '../../serve/mcp/http-endpoint';
import { createModernAgentMcpServer } from '../../serve/mcp/modern-server';
import { fetchEvents, scheduledActivities } from '../support/history';
import { killSpawnedWorkers, spawnWorker } from '../support/spawned-worker';
import { makeWorkspace } from '../support/workspace';
import { agents } from '../fixtures/mcp-served-agents';
import { FakeModelServer, openaiReply, type FakeStep } from '../support/fake-model-server';
import { scriptByPrompt, toolResultsOf } from '../support/script-by-prompt';
import { connectToTestServer, createTestWorker, uniqueTaskQueue } from '../support/temporal';
import type { TestBed } from '../support/test-bed';
import { progressBeforeAnswer, tapWire } from '../support/mcp-wire';
import { waitFor } from '../support/wait-for';
import { elfBytes, pngBytes } from '../support/attachment-files';

// agent mcp's server in this process, behind its Streamable HTTP endpoint, and the SDK's own Client: MCP's task states
// (2025-11-25: working, input_required, completed, failed, cancelled) for runs that complete, end otherwise and are
// cancelled; and a quick call's progress, every notification of which must reach the client before its result. The
// same endpoint serves clients of the 2026-07-28 revision (@modelcontextprotocol/client 2.x): stateless calls,
// approvals as input_required, the tasks extension; and a worker killed while a call of each revision waits.

const bed = {} as TestBed;
jest.setTimeout(180_000);
const taskQueue = uniqueTaskQueue('mcp-task-states');
let worker: Worker;
let running: Promise<void>;
let endpoint: ReturnType<typeof createAgentMcpHttpHandler>;
let options: Parameters<typeof createAgentMcpServer>[0];
// Both revisions, the agents that write (scribe asks before each file), for principals named by X-User.
let both: ReturnType<typeof createAgentMcpHttpHandler>;
let workspace: string;

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
  workspace = await makeWorkspace();
  both = bothRevisions({
    ...options,
    agents: ['helper', 'scribe'],
    inputFor: (name) => ({ agent: name, workspace, stream: false }),
  });
});

function bothRevisions(served: typeof options): ReturnType<typeof createAgentMcpHttpHandler> {
  return createAgentMcpHttpHandler({
    authorize: (request) => request.headers.get('x-user') ?? 'local',
    serverFor: (principal) => createAgentMcpServer(served, principal),
    modernServerFor: (principal, gone) => createModernAgentMcpServer(served, principal, gone),
  });
}
beforeEach(() => bed.server.reset());
afterAll(async () => {
  await endpoint?.close();
  await both?.close();
  worker?.shutdown();
  await running;
  await bed.server?.close();
  await bed.environment?.teardown();
});
afterEach(() => expect(bed.server.refusals).toEqual([]));

async function mcpClient(served = endpoint): Promise<Client> {
  const client = new Client({ name: 'task-states', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1:3001/mcp'), {
    fetch: (input, init) => served.handle(new Request(input, init)),
  });
  wires.set(client, tapWire(transport));
  await client.connect(transport);
  return client;
}

/** What each client's transport read (test/support/mcp-wire.ts). */
const wires = new WeakMap<object, ReturnType<typeof tapWire>>();

/** The progress the server sent before the answer of the call whose first progress line is `first`. */
function sentBeforeAnswer(client: object, first: string | undefined): string[] | undefined {
  const runId = /^run (\S+) started/.exec(first ?? '')?.[1];
  return runId === undefined ? undefined : progressBeforeAnswer(wires.get(client)!, runId);
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
    // The last line of the run's story went out before the result: the SDK's Client drops a request's progress that
    // comes after its result.
    const sent = sentBeforeAnswer(client, messages[0]);
    expect(sent).toContain('model answered (iteration 1)');
    expect(sent?.at(-1)).toBe('turn 1 ended: completed');
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
    expect(sentBeforeAnswer(client, progress[0]?.message)?.at(-1)).toBe('turn 1 ended: completed');
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

type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string> };

/** A client of the 2026-07-28 revision (no handshake: server/discover, then a `_meta` envelope on every request). */
async function modernClient(
  served: ReturnType<typeof createAgentMcpHttpHandler>,
  how: { user?: string; elicit?: (message: string) => Answer | Promise<Answer>; manual?: boolean } = {},
): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'task-states-2026', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: how.elicit || how.manual ? { elicitation: { form: {} } } : {},
      ...(how.manual && { inputRequired: { autoFulfill: false } }),
    },
  );
  const elicit = how.elicit;
  if (elicit) client.setRequestHandler('elicitation/create', (request) => elicit(request.params.message));
  const transport = new ModernHttpTransport(new URL('http://127.0.0.1:3001/mcp'), {
    fetch: (input, init) => served.handle(new Request(input, init)),
    requestInit: { headers: { 'x-user': how.user ?? 'local' } },
  });
  wires.set(client, tapWire(transport));
  await client.connect(transport);
  return client;
}

const accept: Answer = { action: 'accept', content: {} };

it('serves a 2026-07-28 client with no handshake: discover, the tools in order, a call with its progress', async () => {
  scriptByPrompt(bed.server, { 'Quick, in the new revision.': [openaiReply({ content: 'Quick and new.' })] });
  const client = await modernClient(both);
  try {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } });
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(['helper', 'scribe', 'agent_result']);
    const progress: string[] = [];
    const result = await client.callTool(
      { name: 'helper', arguments: { prompt: 'Quick, in the new revision.' } },
      { onprogress: (entry) => progress.push(entry.message ?? '') },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'Quick and new.' }]);
    expect(progress[0]).toMatch(/^run \S+ started/);
    expect(sentBeforeAnswer(client, progress[0])?.at(-1)).toBe('turn 1 ended: completed');
    // A call without its prompt: refused before any run, as this revision's invalid params.
    await expect(client.callTool({ name: 'helper', arguments: { question: 'x' } })).rejects.toThrow(
      /"prompt" must be a non-empty string/,
    );
  } finally {
    await client.close();
  }
});

it("takes a 2026-07-28 client's files for an agent that accepts them; a hostile one is a tool error, no run", async () => {
  const received = scriptByPrompt(bed.server, { 'What is in it, newly?': [openaiReply({ content: 'A chart.' })] });
  const viewing = bothRevisions({
    ...options,
    agents: ['viewer'],
    inputFor: () => ({ agent: 'viewer', workspace, stream: false }),
  });
  const client = await modernClient(viewing);
  try {
    const chart = pngBytes(800).toString('base64');
    const refused = await client.callTool({
      name: 'viewer',
      arguments: {
        prompt: 'What is in it, newly?',
        files: [{ name: 'cat.png', mimeType: 'image/png', data: elfBytes().toString('base64') }],
      },
    });
    expect(refused).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringMatching(/^\[files refused, no run started: .*executable \(ELF\)/) }],
    });
    expect(received['What is in it, newly?']).toEqual([]);
    const answered = await client.callTool({
      name: 'viewer',
      arguments: { prompt: 'What is in it, newly?', files: [{ name: 'chart.png', mimeType: 'image/png', data: chart }] },
    });
    expect(answered.content).toEqual([{ type: 'text', text: 'A chart.' }]);
    const user = received['What is in it, newly?'][0]!.body.messages.find((message: { role: string }) => message.role === 'user');
    expect(user.content[1]).toEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${chart}` } });
  } finally {
    await client.close();
    await viewing.close();
  }
});

it('asks for approval with input_required: the answer releases exactly its call; forged, misdirected, replayed ones nothing', async () => {
  const write = (id: string, file: string) =>
    openaiReply({ toolCalls: [{ id, name: 'write_file', arguments: { path: file, content: file } }] });
  const received = scriptByPrompt(bed.server, {
    'Write c.': [write('call_c', 'c.txt'), openaiReply({ content: 'Wrote c.' })],
    'Write both.': [write('call_a', 'a.txt'), write('call_b', 'b.txt'), openaiReply({ content: 'Wrote a, not b.' })],
    'Write unasked, newly.': [write('call_u', 'u.txt'), openaiReply({ content: 'I could not ask.' })],
  });
  // The SDK's client asks its user through the handler it was given, and retries the call with the answer.
  const questions: string[] = [];
  const asking = await modernClient(both, { elicit: (message) => (questions.push(message), accept) });
  const manual = await modernClient(both, { manual: true });
  const mallory = await modernClient(both, { manual: true, user: 'mallory' });
  const unable = await modernClient(both);
  try {
    const c = await asking.callTool({ name: 'scribe', arguments: { prompt: 'Write c.' } });
    expect(c.content).toEqual([{ type: 'text', text: 'Wrote c.' }]);
    expect(questions).toEqual([
      expect.stringMatching(/^Approve write_file "c\.txt" \(5 bytes, 1 line\)\?[\s\S]*\(answer by \d{4}-/),
    ]);
    expect(existsSync(path.join(workspace, 'c.txt'))).toBe(true);

    type Retry = { requestState?: string; inputResponses?: Record<string, Answer> };
    const call = (retry: Retry = {}, client = manual, prompt = 'Write both.') =>
      client.callTool({ name: 'scribe', arguments: { prompt }, ...retry }, { allowInputRequired: true }) as Promise<
        InputRequiredResult & CallToolResult
      >;
    const first = await call();
    expect(Object.keys(first.inputRequests ?? {})).toEqual(['approval:call_a']);
    const state = first.requestState!;
    // A state changed by the client, one of another principal, and one sent with another call: refused.
    const forged = `${state.slice(0, -4)}${state.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    await expect(call({ requestState: forged, inputResponses: { 'approval:call_a': accept } })).rejects.toThrow(
      /Invalid or expired requestState/,
    );
    await expect(call({ requestState: state, inputResponses: { 'approval:call_a': accept } }, mallory)).rejects.toThrow(
      /Invalid or expired requestState/,
    );
    await expect(
      call({ requestState: state, inputResponses: { 'approval:call_a': accept } }, manual, 'Write c.'),
    ).rejects.toThrow(/answers another call/);
    // An answer under a key that is not the state's call decides nothing: the question again.
    const misdirected = await call({ requestState: state, inputResponses: { 'approval:call_b': accept } });
    expect(Object.keys(misdirected.inputRequests ?? {})).toEqual(['approval:call_a']);
    // The answer: call_a runs, and the run asks about call_b.
    const second = await call({ requestState: state, inputResponses: { 'approval:call_a': accept } });
    expect(Object.keys(second.inputRequests ?? {})).toEqual(['approval:call_b']);
    expect(existsSync(path.join(workspace, 'a.txt'))).toBe(true);
    // The first answer again: it released call_a, it does not release call_b.
    const replayed = await call({ requestState: state, inputResponses: { 'approval:call_a': accept } });
    expect(Object.keys(replayed.inputRequests ?? {})).toEqual(['approval:call_b']);
    expect(existsSync(path.join(workspace, 'b.txt'))).toBe(false);
    const done = await call({
      requestState: second.requestState,
      inputResponses: { 'approval:call_b': { action: 'decline', content: { reason: 'not b' } } },
    });
    expect(done.content).toEqual([{ type: 'text', text: 'Wrote a, not b.' }]);
    expect(existsSync(path.join(workspace, 'b.txt'))).toBe(false);
    expect(toolResultsOf(received['Write both.'][2]).call_b).toMatch(/declined: not b/);

    // A client that declared no elicitation cannot ask: the call is refused, never approved silently.
    const refused = await unable.callTool({ name: 'scribe', arguments: { prompt: 'Write unasked, newly.' } });
    expect(refused.content).toEqual([{ type: 'text', text: 'I could not ask.' }]);
    expect(toolResultsOf(received['Write unasked, newly.'][1]).call_u).toMatch(/did not declare the elicitation capability/);
  } finally {
    for (const client of [asking, manual, mallory, unable]) await client.close();
  }
});

/**
 * A request of the tasks extension, as a client of it sends one: no client of the extension is published yet, so
 * the body is written here (the wire of docs/specification/draft/tasks.mdx, modelcontextprotocol/experimental-ext-tasks)
 * and sent to the endpoint, which the 2.x SDK's handler answers.
 */
let rawId = 0;
async function extensionRequest(method: string, params: Record<string, unknown>, user = 'local') {
  const response = await both.handle(
    new Request('http://127.0.0.1:3001/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        // The name a gateway routes by: the tool's, or the task's.
        'mcp-name': String(params.name ?? params.taskId),
        'x-user': user,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++rawId,
        method,
        params: {
          ...params,
          _meta: {
            [PROTOCOL_VERSION_META_KEY]: '2026-07-28',
            [CLIENT_INFO_META_KEY]: { name: 'tasks-extension', version: '1.0.0' },
            [CLIENT_CAPABILITIES_META_KEY]: { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } },
          },
        },
      }),
    }),
  );
  const text = await response.text();
  // An SSE answer ends with its result; a JSON one is the result.
  const last = text.startsWith('{')
    ? text
    : text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .at(-1)!
        .slice(6);
  return JSON.parse(last) as { result?: Record<string, unknown>; error?: { message: string } };
}

it('answers a client of the tasks extension with the run as a task: read, answered and cancelled from any request', async () => {
  const slow = gated('never read');
  const received = scriptByPrompt(bed.server, {
    'Write t, as a task.': [
      openaiReply({ toolCalls: [{ id: 'call_t', name: 'write_file', arguments: { path: 't.txt', content: 't' } }] }),
      openaiReply({ content: 'Wrote t.' }),
    ],
    'Wait, as a task.': [slow.step],
  });
  const created = await extensionRequest('tools/call', { name: 'scribe', arguments: { prompt: 'Write t, as a task.' } });
  expect(created.result).toMatchObject({ resultType: 'task', status: 'working', ttlMs: null });
  const taskId = created.result!.taskId as string;
  expect((await bed.environment.client.workflow.getHandle(taskId).describe()).type).toBe('agentWorkflow');
  const get = () => extensionRequest('tasks/get', { taskId });
  const waiting = await waitFor('the task to wait for input', async () => {
    const task = (await get()).result!;
    return task.status === 'input_required' ? task : undefined;
  });
  expect(waiting.inputRequests).toMatchObject({
    'approval:call_t': {
      method: 'elicitation/create',
      params: { message: expect.stringMatching(/^Approve write_file "t\.txt"/) },
    },
  });
  // Another principal's request: no such task.
  expect((await extensionRequest('tasks/get', { taskId }, 'mallory')).error?.message).toMatch(
    `no task ${taskId} that you can read`,
  );
  expect(
    (await extensionRequest('tasks/update', { taskId, inputResponses: { 'approval:call_t': accept } })).result,
  ).toMatchObject({
    resultType: 'complete',
  });
  const completed = await waitFor('the task to complete', async () => {
    const task = (await get()).result!;
    return task.status === 'completed' ? task : undefined;
  });
  expect(completed.result).toMatchObject({ content: [{ type: 'text', text: 'Wrote t.' }] });
  expect(existsSync(path.join(workspace, 't.txt'))).toBe(true);

  const second = (await extensionRequest('tools/call', { name: 'helper', arguments: { prompt: 'Wait, as a task.' } })).result!;
  await waitFor('the model call', () => received['Wait, as a task.'].length === 1);
  expect((await extensionRequest('tasks/cancel', { taskId: second.taskId })).result).toMatchObject({ resultType: 'complete' });
  await waitFor(
    'the task to be cancelled',
    async () => (await extensionRequest('tasks/get', { taskId: second.taskId })).result!.status === 'cancelled',
  );
  slow.release();
});

it('answers a call of each revision after the worker running it is killed while it waits for approval', async () => {
  const killedQueue = uniqueTaskQueue('mcp-killed');
  const write = (id: string, file: string) =>
    openaiReply({ toolCalls: [{ id, name: 'write_file', arguments: { path: file, content: file } }] });
  scriptByPrompt(bed.server, {
    'Write old.': [write('call_old', 'old.txt'), openaiReply({ content: 'Wrote old.' })],
    'Write new.': [write('call_new', 'new.txt'), openaiReply({ content: 'Wrote new.' })],
  });
  // The killed worker hands its runs on after 1 s rather than its sticky queue's 5; the next one runs in this process.
  const startWorker = (identity: string) =>
    spawnWorker({
      address: process.env.TEST_TEMPORAL_ADDRESS!,
      taskQueue: killedQueue,
      identity,
      env: { ...bed.server.providerEnv, STICKY_QUEUE_TIMEOUT_MS: '1000' },
    });
  // The built-in agent, asking before each file: the spawned workers have the built-in registry.
  const served = bothRevisions({
    ...options,
    taskQueue: killedQueue,
    agents: ['default'],
    inputFor: () => ({
      model: 'openai:gpt-4o-mini',
      tools: ['write_file'],
      workspace,
      approval: { tools: ['write_file'] },
      stream: false,
    }),
  });
  // Each question is answered once both have been asked and the worker that ran them was killed and replaced.
  let asked = 0;
  let replaced!: () => void;
  const workerReplaced = new Promise<void>((resolve) => (replaced = resolve));
  const answerAfterTheKill = async () => {
    asked += 1;
    await workerReplaced;
    return accept;
  };
  const old = new Client({ name: 'killed-2025', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  old.setRequestHandler(ElicitRequestSchema, answerAfterTheKill);
  let modern: ModernClient | undefined;
  try {
    const workerA = await startWorker('worker-a');
    await old.connect(
      new StreamableHTTPClientTransport(new URL('http://127.0.0.1:3001/mcp'), {
        fetch: (input, init) => served.handle(new Request(input, init)),
      }),
    );
    modern = await modernClient(served, { elicit: answerAfterTheKill });
    const calls = [
      old.callTool({ name: 'default', arguments: { prompt: 'Write old.' } }),
      modern.callTool({ name: 'default', arguments: { prompt: 'Write new.' } }),
    ];
    await waitFor('both questions', () => asked === 2);
    await workerA.kill();
    const workerB = await createTestWorker(bed.environment, { taskQueue: killedQueue, env: bed.server.providerEnv });
    replaced();
    const [oldResult, newResult] = await workerB.runUntil(Promise.all(calls));
    expect(oldResult.content).toEqual([{ type: 'text', text: 'Wrote old.' }]);
    expect(newResult.content).toEqual([{ type: 'text', text: 'Wrote new.' }]);
    for (const result of [oldResult, newResult]) {
      const { workflowId } = result._meta!['durable-agent/run'] as { workflowId: string };
      const scheduled = scheduledActivities(await fetchEvents(bed.environment.client, workflowId));
      expect(scheduled.filter((activity) => activity.activityType === 'write_file')).toHaveLength(1);
    }
  } finally {
    await old.close();
    await modern?.close();
    await served.close();
    await killSpawnedWorkers();
  }
  expect(existsSync(path.join(workspace, 'old.txt'))).toBe(true);
  expect(existsSync(path.join(workspace, 'new.txt'))).toBe(true);
});
