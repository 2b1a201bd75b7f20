import { WorkflowFailedError } from '@temporalio/client';
import { createListMcpTools } from '../../activities/mcp/list-tools-activity';
import { McpCatalog } from '../../mcp/catalog';
import { createAgentRegistry } from '../../agents/registry';
import { defineAgent } from '../../agents/define-agent';
import type { McpListing } from '../../mcp/types';
import { McpConnections } from '../../mcp/connections';
import { activityCalls } from '../support/activity-calls';
import { freePort } from '../../cli/dev-server/free-port';
import { anthropicReply, openaiReply } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { startHttpMcpServer, stdioServerEntry } from '../support/mcp-test-server';
import { createTestWorker, resolved, runAgent, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { randomUUID } from 'node:crypto';
import { agentWorkflowType, approveUpdate, denyUpdate, statusQuery } from '../../workflows/definitions';
import { toolResultsSent } from '../support/wire-results';
import { waitFor } from '../support/wait-for';

const bed = useTestBed();

const toolNames = (body: { tools?: Array<{ name?: string; function?: { name: string } }> }) =>
  (body.tools ?? []).map((tool) => tool.function?.name ?? tool.name);

function listingOf(calls: ReturnType<typeof activityCalls>): McpListing {
  const listed = calls.find((call) => call.activityType === 'listMcpTools');
  return (listed!.result as { listing: McpListing }).listing;
}

it("offers a stdio server's tools as <server>_<tool> with their schemas, runs a call as an activity of that name, and records the listing", async () => {
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call_add', name: 'calc_add', arguments: { a: 2, b: 3 } }] }),
    openaiReply({ content: '2 + 3 = 5' }),
  );
  const taskQueue = uniqueTaskQueue('mcp-stdio');
  const worker = await createTestWorker(bed.environment, {
    taskQueue,
    env: bed.server.providerEnv,
    mcpServers: { calc: stdioServerEntry() },
  });
  const { result, workflowId } = await worker.runUntil(
    runAgent(bed.environment, taskQueue, {
      prompt: 'Add 2 and 3',
      model: 'openai:gpt-4o-mini',
      tools: ['read_file', 'mcp:*'],
      workspace: bed.workspace,
    }),
  );

  expect(result).toMatchObject({ status: 'completed', answer: '2 + 3 = 5' });
  expect(bed.server.refusals).toEqual([]);
  const [first, second] = bed.server.requests;
  expect(toolNames(first.body)).toEqual(['read_file', 'calc_add', 'calc_fail', 'calc_pid']);
  // The server's own JSON Schema, as its tools/list gave it ($schema aside).
  expect(first.body.tools[1].function).toEqual({
    name: 'calc_add',
    description: 'Adds two numbers.',
    parameters: {
      type: 'object',
      properties: {
        a: { type: 'number', description: 'The first number' },
        b: { type: 'number', description: 'The second number' },
      },
      required: ['a', 'b'],
    },
  });
  expect(second.body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_add', content: '5' });

  const calls = activityCalls(await fetchEvents(bed.environment.client, workflowId));
  expect(calls.map((call) => call.activityType)).toEqual(['prepareRun', 'listMcpTools', 'callModel', 'calc_add', 'callModel']);
  const listing = listingOf(calls);
  expect(calls[1].summary).toBe('list MCP tools: calc');
  expect(Object.keys(listing.tools)).toEqual(['calc_add', 'calc_fail', 'calc_pid']);
  expect(listing.tools.calc_add).toMatchObject({ server: 'calc', tool: 'add', description: 'Adds two numbers.' });
  expect(listing.unavailable).toEqual({});
  expect(calls[3].input).toEqual({
    arguments: { a: 2, b: 3 },
    workspace: bed.workspace,
    callId: 'call_add',
    mcp: { server: 'calc', tool: 'add' },
    // An MCP tool may ask the person mid-call (a 2026-07-28 server's input_required): the run says it can.
    mayAsk: true,
  });
  expect(calls[3].result).toBe('5');
  // Model calls name the listing by its id: the schemas are in history once, in the listing, not in every call.
  for (const call of calls.filter((each) => each.activityType === 'callModel')) {
    expect((call.input as { mcp?: unknown }).mcp).toEqual({ id: listing.id });
  }
});

it('returns a tool error (isError) to the model as an error result, at once, over streamable HTTP', async () => {
  const http = await startHttpMcpServer();
  try {
    bed.server.enqueue(
      anthropicReply({
        toolCalls: [
          { id: 'toolu_fail', name: 'remote_fail', arguments: { reason: 'asked to' } },
          { id: 'toolu_add', name: 'remote_add', arguments: { a: 1, b: 2 } },
        ],
      }),
      anthropicReply({ text: 'One failed, one gave 3.' }),
    );
    const taskQueue = uniqueTaskQueue('mcp-http');
    const worker = await createTestWorker(bed.environment, {
      taskQueue,
      env: bed.server.providerEnv,
      mcpServers: { remote: { url: http.url } },
    });
    const { result, workflowId } = await worker.runUntil(
      runAgent(bed.environment, taskQueue, {
        prompt: 'Try both',
        model: 'anthropic:claude-haiku-4-5',
        tools: ['mcp:remote'],
        workspace: bed.workspace,
      }),
    );

    expect(result).toMatchObject({ status: 'completed', answer: 'One failed, one gave 3.' });
    expect(bed.server.refusals).toEqual([]);
    expect(toolNames(bed.server.requests[0].body)).toEqual(['remote_add', 'remote_fail', 'remote_pid']);
    expect(bed.server.requests[1].body.messages.at(-1).content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_fail', content: 'Error: fail was asked to fail: asked to', is_error: true },
      { type: 'tool_result', tool_use_id: 'toolu_add', content: '3' },
    ]);
    expect(
      http.requests
        .filter((request) => request.method === 'tools/call')
        .map((request) => request.tool)
        .sort(),
    ).toEqual(['add', 'fail']);
    const calls = activityCalls(await fetchEvents(bed.environment.client, workflowId));
    const failed = calls.find((call) => call.activityType === 'remote_fail')!;
    // A tool error is the tool's answer: not retried.
    expect(failed).toMatchObject({ attempt: 1, failure: { type: 'ToolRefused', message: 'fail was asked to fail: asked to' } });
  } finally {
    await http.close();
  }
});

it('starts a crashed stdio server again on the next call', async () => {
  const pids: number[] = [];
  bed.server.respondWith((request, index) => {
    if (index === 0) return openaiReply({ toolCalls: [{ id: 'call_pid_1', name: 'calc_pid', arguments: {} }] });
    if (index === 1) {
      const pid = Number(request.body.messages.at(-1).content);
      pids.push(pid);
      process.kill(pid, 'SIGKILL');
      // The next call is asked for once the server's process is gone.
      return {
        gate: processGone(pid),
        then: openaiReply({ toolCalls: [{ id: 'call_pid_2', name: 'calc_pid', arguments: {} }] }),
      };
    }
    pids.push(Number(request.body.messages.at(-1).content));
    return openaiReply({ content: 'done' });
  });
  const taskQueue = uniqueTaskQueue('mcp-crash');
  const worker = await createTestWorker(bed.environment, {
    taskQueue,
    env: bed.server.providerEnv,
    mcpServers: { calc: stdioServerEntry() },
  });
  const { result, workflowId } = await worker.runUntil(
    runAgent(bed.environment, taskQueue, {
      prompt: 'Which process?',
      model: 'openai:gpt-4o-mini',
      tools: ['calc_pid'],
      workspace: bed.workspace,
    }),
  );

  expect(result.status).toBe('completed');
  expect(pids).toHaveLength(2);
  expect(pids.every((pid) => pid > 0)).toBe(true);
  expect(pids[1]).not.toBe(pids[0]);
  const calls = activityCalls(await fetchEvents(bed.environment.client, workflowId)).filter(
    (call) => call.activityType === 'calc_pid',
  );
  // Restarted by the next call itself, not by a retry after a failed attempt.
  expect(calls.map((call) => [call.attempt, call.result])).toEqual([
    [1, String(pids[0])],
    [1, String(pids[1])],
  ]);
});

it('leaves a server that is down out of mcp:*, and fails a run that names one of its tools, saying why', async () => {
  const closedPort = await freePort();
  const mcpServers = { calc: stdioServerEntry(), down: { url: `http://127.0.0.1:${closedPort}/mcp` } };
  bed.server.enqueue(openaiReply({ content: 'I can only add.' }));
  const taskQueue = uniqueTaskQueue('mcp-down');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv, mcpServers });
  await worker.runUntil(async () => {
    const { result, workflowId } = await runAgent(bed.environment, taskQueue, {
      prompt: 'Hi',
      model: 'openai:gpt-4o-mini',
      tools: ['mcp:*'],
      workspace: bed.workspace,
    });
    expect(result.status).toBe('completed');
    expect(toolNames(bed.server.requests[0].body)).toEqual(['calc_add', 'calc_fail', 'calc_pid']);
    const listing = listingOf(activityCalls(await fetchEvents(bed.environment.client, workflowId)));
    expect(listing.unavailable.down).toMatch(
      new RegExp(`MCP server "down" could not be reached at http://127.0.0.1:${closedPort}/mcp: fetch failed \\(ECONNREFUSED\\)`),
    );

    const named = runAgent(bed.environment, taskQueue, {
      prompt: 'Hi',
      model: 'openai:gpt-4o-mini',
      tools: ['down_add'],
      workspace: bed.workspace,
    });
    const failure = await named.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause?.message).toMatch(
      /the run names the MCP tool down_add, and MCP server "down" could not be reached .*ECONNREFUSED/,
    );
  });
  expect(bed.server.requests).toHaveLength(1);
});

it("gives the model an error result when a server goes down after the listing, once the call's retries are spent", async () => {
  const http = await startHttpMcpServer();
  // The server stops once the run has listed its tools, before the model asks for one.
  bed.server.respondWith((_request, index) =>
    index === 0
      ? {
          gate: http.close(),
          then: openaiReply({ toolCalls: [{ id: 'call_add', name: 'remote_add', arguments: { a: 1, b: 1 } }] }),
        }
      : openaiReply({ content: 'The adder is down.' }),
  );
  const taskQueue = uniqueTaskQueue('mcp-gone');
  const worker = await createTestWorker(bed.environment, {
    taskQueue,
    env: bed.server.providerEnv,
    mcpServers: { remote: { url: http.url } },
  });
  const { result, workflowId } = await worker.runUntil(
    runAgent(bed.environment, taskQueue, {
      prompt: 'Add',
      model: 'openai:gpt-4o-mini',
      tools: ['remote_add'],
      workspace: bed.workspace,
    }),
  );

  expect(result).toMatchObject({ status: 'completed', answer: 'The adder is down.' });
  expect(bed.server.requests[1].body.messages.at(-1)).toEqual({
    role: 'tool',
    tool_call_id: 'call_add',
    content: expect.stringMatching(
      /^Error: remote_add failed after 3 attempt\(s\): MCP server "remote" (is unavailable|could not be reached).*ECONNREFUSED/,
    ),
  });
  const call = activityCalls(await fetchEvents(bed.environment.client, workflowId)).find(
    (each) => each.activityType === 'remote_add',
  )!;
  expect(call).toMatchObject({ attempt: 3, failure: { type: 'McpServerUnavailable' } });
});

it('offers an agent only the MCP tools it names, and fails a run whose agent names one the server does not have', async () => {
  const calculator = defineAgent({ name: 'calculator', description: 'Adds.', model: 'openai:gpt-4o-mini', tools: ['calc_add'] });
  const confused = defineAgent({
    name: 'confused',
    description: 'Names a tool that is not there.',
    model: 'openai:gpt-4o-mini',
    tools: ['calc_multiply'],
  });
  bed.server.enqueue(openaiReply({ content: 'ready' }));
  const taskQueue = uniqueTaskQueue('mcp-agents');
  const worker = await createTestWorker(bed.environment, {
    taskQueue,
    env: bed.server.providerEnv,
    agents: [calculator, confused],
    mcpServers: { calc: stdioServerEntry() },
  });
  await worker.runUntil(async () => {
    const { result } = await runAgent(bed.environment, taskQueue, {
      agent: 'calculator',
      prompt: 'Ready?',
      workspace: bed.workspace,
    });
    expect(result.answer).toBe('ready');
    expect(toolNames(bed.server.requests[0].body)).toEqual(['calc_add']);

    const failure = await runAgent(bed.environment, taskQueue, {
      agent: 'confused',
      prompt: 'Multiply',
      workspace: bed.workspace,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((failure as WorkflowFailedError).cause?.message).toBe(
      'unknown MCP tool "calc_multiply"; "calc" offer: calc_add, calc_fail, calc_pid',
    );
  });
  expect(bed.server.requests).toHaveLength(1);
});

it("lists MCP tools in the run that uses them: a subagent's own run, not its parent's", async () => {
  const calculator = defineAgent({
    name: 'calculator',
    description: 'Adds numbers.',
    model: 'openai:gpt-4o-mini',
    tools: ['mcp:calc'],
  });
  const coordinator = defineAgent({
    name: 'coordinator',
    description: 'Delegates.',
    model: 'openai:gpt-4o-mini',
    subagents: [calculator],
  });
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call_sub', name: 'calculator', arguments: { task: 'Add 2 and 3' } }] }),
    openaiReply({ toolCalls: [{ id: 'call_add', name: 'calc_add', arguments: { a: 2, b: 3 } }] }),
    openaiReply({ content: '5' }),
    openaiReply({ content: 'The calculator says 5.' }),
  );
  const taskQueue = uniqueTaskQueue('mcp-subagent');
  const worker = await createTestWorker(bed.environment, {
    taskQueue,
    env: bed.server.providerEnv,
    agents: [coordinator],
    mcpServers: { calc: stdioServerEntry() },
  });
  const { result, workflowId } = await worker.runUntil(
    runAgent(bed.environment, taskQueue, { agent: 'coordinator', prompt: 'What is 2 + 3?', workspace: bed.workspace }),
  );

  expect(result.answer).toBe('The calculator says 5.');
  expect(bed.server.requests.map((request) => toolNames(request.body))).toEqual([
    ['calculator'],
    ['calc_add', 'calc_fail', 'calc_pid'],
    ['calc_add', 'calc_fail', 'calc_pid'],
    ['calculator'],
  ]);
  const parent = activityCalls(await fetchEvents(bed.environment.client, workflowId)).map((call) => call.activityType);
  const child = activityCalls(await fetchEvents(bed.environment.client, `${workflowId}/call_sub`)).map(
    (call) => call.activityType,
  );
  expect(parent).toEqual(['prepareRun', 'callModel', 'callModel']);
  expect(child).toEqual(['prepareRun', 'listMcpTools', 'callModel', 'calc_add', 'callModel']);
});

it('sends the tools with a model call when its worker did not list them, once per worker', async () => {
  const http = await startHttpMcpServer();
  // A listing made with a catalog of its own stands for one made by another worker: the model activity's catalog lacks it.
  const registry = createAgentRegistry({ mcpServers: { remote: { url: http.url } } });
  const connections = new McpConnections(registry.mcpServers);
  try {
    bed.server.enqueue(
      openaiReply({ toolCalls: [{ id: 'call_add', name: 'remote_add', arguments: { a: 20, b: 22 } }] }),
      openaiReply({ content: '42' }),
    );
    const taskQueue = uniqueTaskQueue('mcp-resend');
    const worker = await createTestWorker(bed.environment, {
      taskQueue,
      env: bed.server.providerEnv,
      mcpServers: { remote: { url: http.url } },
      activityOverrides: { listMcpTools: createListMcpTools(registry, connections, new McpCatalog()) },
    });
    const { result, workflowId } = await worker.runUntil(
      runAgent(bed.environment, taskQueue, {
        prompt: 'Add',
        model: 'openai:gpt-4o-mini',
        tools: ['mcp:remote'],
        workspace: bed.workspace,
      }),
    );

    expect(result.answer).toBe('42');
    expect(bed.server.requests.map((request) => toolNames(request.body))).toEqual([
      ['remote_add', 'remote_fail', 'remote_pid'],
      ['remote_add', 'remote_fail', 'remote_pid'],
    ]);
    const calls = activityCalls(await fetchEvents(bed.environment.client, workflowId)).filter(
      (call) => call.activityType === 'callModel',
    );
    const mcpOf = (index: number) => (calls[index].input as { mcp: { id: string; tools?: Record<string, unknown> } }).mcp;
    expect(calls.map((call) => call.failure?.type)).toEqual(['McpToolsUnavailable', undefined, undefined]);
    expect(mcpOf(0).tools).toBeUndefined();
    expect(Object.keys(mcpOf(1).tools!)).toEqual(['remote_add', 'remote_fail', 'remote_pid']);
    // The worker keeps what it was sent: the next call names the listing only.
    expect(mcpOf(2)).toEqual({ id: mcpOf(1).id });
  } finally {
    await connections.close();
    await http.close();
  }
});

function processGone(pid: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      try {
        process.kill(pid, 0);
        setTimeout(check, 20);
      } catch {
        resolve();
      }
    };
    check();
  });
}

it("asks the person what a 2026-07-28 tool asks (input_required), across a worker's end, and resumes exactly that call", async () => {
  const http = await startHttpMcpServer(0, { revision: '2026-07-28' });
  try {
    bed.server.enqueue(
      openaiReply({
        toolCalls: [
          { id: 'call_add', name: 'modern_add', arguments: { a: 2, b: 3 } },
          { id: 'call_lunch', name: 'modern_ask', arguments: { topic: 'lunch' } },
          { id: 'call_dinner', name: 'modern_ask', arguments: { topic: 'dinner' } },
        ],
      }),
      openaiReply({ content: 'Five; lunch is on, dinner is not.' }),
    );
    const taskQueue = uniqueTaskQueue('mcp-2026');
    const workerOptions = { taskQueue, env: bed.server.providerEnv, mcpServers: { modern: { url: http.url } } };
    const handle = await bed.environment.client.workflow.start(agentWorkflowType, {
      taskQueue,
      workflowId: `mcp-ask-${randomUUID()}`,
      args: [resolved({ prompt: 'Add, then ask', model: 'openai:gpt-4o-mini', tools: ['mcp:modern'], workspace: bed.workspace })],
    });
    // The first worker runs the calls up to the questions, and is gone before the person answers them.
    const first = await createTestWorker(bed.environment, workerOptions);
    const asked = await first.runUntil(() =>
      waitFor('both questions asked', async () => {
        const { pendingApprovals } = await handle.query(statusQuery);
        return pendingApprovals.length === 2 && pendingApprovals;
      }),
    );
    expect(asked.map((request) => request.id).sort()).toEqual(['call_dinner', 'call_lunch']);
    const lunch = asked.find((request) => request.id === 'call_lunch')!;
    expect(lunch).toMatchObject({ tool: 'modern_ask', rule: 'tool_question', question: { schema: { type: 'object' } } });
    // The server's words, its right-to-left override made visible.
    expect(lunch.description).toContain('modern_ask asks: Sure about lunch?\\u{202E}');
    expect(lunch.description).not.toContain('\u202E');
    expect(toolNames(bed.server.requests[0].body)).toEqual(['modern_add', 'modern_pid', 'modern_ask']);

    const second = await createTestWorker(bed.environment, workerOptions);
    const result = await second.runUntil(async () => {
      await handle.executeUpdate(approveUpdate, { args: [{ call: 'call_lunch', arguments: '{"note":"yes please"}' }] });
      await handle.executeUpdate(denyUpdate, { args: [{ call: 'call_dinner', reason: 'not tonight' }] });
      return handle.result();
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'Five; lunch is on, dinner is not.' });
    expect(toolResultsSent(bed.server.requests[1])).toEqual([
      { id: 'call_add', content: '5' },
      { id: 'call_lunch', content: 'asked about lunch; the user said: yes please' },
      {
        id: 'call_dinner',
        content: "Error: not run: the person declined the MCP tool modern_ask's question (denied: not tonight)",
      },
    ]);
    // The lunch call was sent again with its answer, once; the declined one was not sent again.
    const asks = http.requests.filter((request) => request.tool === 'ask');
    expect(asks).toEqual([
      { method: 'tools/call', tool: 'ask' },
      { method: 'tools/call', tool: 'ask' },
      { method: 'tools/call', tool: 'ask', answered: true },
    ]);
    const calls = activityCalls(await fetchEvents(bed.environment.client, handle.workflowId)).filter(
      (call) => call.activityType === 'modern_ask',
    );
    expect(calls.map((call) => (call.input as { answer?: { accepted: boolean } }).answer?.accepted)).toEqual([
      undefined,
      undefined,
      true,
      false,
    ]);
  } finally {
    await http.close();
  }
});
