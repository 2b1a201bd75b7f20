import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal } from '@temporalio/proto';
import { defineAgent, type Agent } from '../../agents/define-agent';
import type { AgentInput } from '../../core/resolve-input';
import type { AgentResult } from '../../core/result';
import { agentWorkflowType } from '../../workflows/definitions';
import { fetchEvents } from '../support/history';
import { failure, scriptedModel, type ScriptedModel, type ScriptedRequest } from 'durable-agent/testing';
import { connectToTestServer, createTestWorker, resolved, uniqueTaskQueue } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';
import { ownerMemo } from '../../serve/http/run-owner';

const EventType = temporal.api.enums.v1.EventType;

// Agents as values, at the workflow level: the model is scripted per agent (the real model activity calls it),
// the subagents are real child workflows on the dev server, and every workflow task is replayed.

const researcher = defineAgent({
  name: 'researcher',
  description: 'Finds facts in the workspace.',
  instructions: 'You research.',
  model: 'openai:gpt-4o-mini',
  tools: ['read_file'],
  maxIterations: 3,
});
const writer = defineAgent({
  name: 'writer',
  description: 'Writes prose.',
  instructions: 'You write.',
  model: 'anthropic:claude-haiku-4-5',
  maxIterations: 2,
});
const coordinator = defineAgent({
  name: 'coordinator',
  description: 'Splits work between specialists.',
  instructions: 'You coordinate.',
  model: 'openai:gpt-4o',
  subagents: [researcher, writer],
});
const billing = defineAgent({
  name: 'billing',
  description: 'Answers billing questions.',
  instructions: 'You do billing.',
  model: 'anthropic:claude-haiku-4-5',
});
const triage = defineAgent({
  name: 'triage',
  description: 'Routes questions.',
  instructions: 'You route.',
  model: 'openai:gpt-4o-mini',
  handoffs: [billing],
});
const recursive = defineAgent({
  name: 'recursive',
  description: 'Calls itself.',
  model: 'openai:gpt-4o-mini',
  subagents: ['recursive'],
});

let environment: TestWorkflowEnvironment;
let workspace: string;
beforeAll(async () => {
  environment = await connectToTestServer();
  workspace = await makeWorkspace({ 'facts.txt': 'the sky is blue' });
});
afterAll(() => environment?.teardown());

async function run(
  model: ScriptedModel,
  input: Omit<AgentInput, 'workspace'>,
  agents: Agent[],
  body?: (workflowId: string) => Promise<void>,
) {
  const taskQueue = uniqueTaskQueue('agents');
  const worker = await createTestWorker(environment, { taskQueue, model, agents });
  const workflowId = `agents-${randomUUID()}`;
  const result = await worker.runUntil(async () => {
    const handle = await environment.client.workflow.start<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
      taskQueue,
      workflowId,
      args: [resolved({ workspace, ...input })],
    });
    await body?.(workflowId);
    return handle.result().catch((error: unknown) => error);
  });
  return { result, workflowId };
}

/** The tools a model call may call: none when it must answer in text. */
function offeredTools(request: ScriptedRequest): string[] {
  return request.toolChoice === 'none' ? [] : request.tools.map((tool) => tool.name);
}

function childStarts(events: Awaited<ReturnType<typeof fetchEvents>>) {
  return events
    .filter((event) => event.eventType === EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED)
    .map((event) => ({
      workflowId: event.startChildWorkflowExecutionInitiatedEventAttributes!.workflowId!,
      workflowTask: Number(event.startChildWorkflowExecutionInitiatedEventAttributes!.workflowTaskCompletedEventId),
    }));
}

describe('subagents', () => {
  it('runs two subagents in parallel as child workflows started by one workflow task, their answers and tokens coming back', async () => {
    const model = scriptedModel({
      coordinator: [
        {
          toolCalls: [
            { name: 'researcher', arguments: { task: 'what colour is the sky?' }, id: 'ask_researcher' },
            { name: 'writer', arguments: { task: 'write a haiku' }, id: 'ask_writer' },
          ],
          usage: { inputTokens: 20, outputTokens: 8 },
        },
        'The sky is blue; here is a haiku.',
      ],
      researcher: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'facts.txt' } }], usage: { inputTokens: 20, outputTokens: 8 } },
        'blue',
      ],
      writer: ['blue sky, a haiku'],
    });
    const { result, workflowId } = await run(model, { agent: 'coordinator', prompt: 'research and write' }, [coordinator]);
    expect(result).toMatchObject({ status: 'completed', answer: 'The sky is blue; here is a haiku.', agent: 'coordinator' });
    // Its own two calls (a tool call: 20 in / 8 out, an answer: 10 / 5), the researcher's two and the writer's one.
    expect((result as AgentResult).usage).toEqual({
      inputTokens: 20 + 10 + 20 + 10 + 10,
      outputTokens: 8 + 5 + 8 + 5 + 5,
      unpricedCalls: 5,
    });

    const starts = childStarts(await fetchEvents(environment.client, workflowId));
    expect(starts.map((start) => start.workflowId)).toEqual([`${workflowId}/ask_researcher`, `${workflowId}/ask_writer`]);
    expect(new Set(starts.map((start) => start.workflowTask)).size).toBe(1);

    const coordinatorRequests = model.requestsOf('coordinator');
    expect(offeredTools(coordinatorRequests[0])).toEqual(['researcher', 'writer']);
    expect(coordinatorRequests[0].messages[0]).toEqual({ role: 'system', content: 'You coordinate.' });
    expect(coordinatorRequests[1].messages.filter((message) => message.role === 'tool')).toEqual([
      { role: 'tool', toolCallId: 'ask_researcher', toolName: 'researcher', content: 'blue', isError: false },
      { role: 'tool', toolCallId: 'ask_writer', toolName: 'writer', content: 'blue sky, a haiku', isError: false },
    ]);
    // Each child got its task as its prompt, and its own instructions and model.
    const researcherRequest = model.requestsOf('researcher')[0];
    expect(researcherRequest.model).toBe('openai:gpt-4o-mini');
    expect(offeredTools(researcherRequest)).toEqual(['read_file']);
    expect(researcherRequest.messages).toEqual([
      { role: 'system', content: 'You research.' },
      { role: 'user', content: 'what colour is the sky?' },
    ]);
  });

  it('turns a subagent that fails, or ends at its limit, into an error result with the reason', async () => {
    const model = scriptedModel({
      coordinator: [
        {
          toolCalls: [
            { name: 'researcher', arguments: { task: 'loop' }, id: 'r1' },
            { name: 'writer', arguments: { task: 'fail' }, id: 'w1' },
          ],
        },
        'both went wrong',
      ],
      researcher: [
        ...Array.from({ length: 3 }, () => ({ toolCalls: [{ name: 'read_file', arguments: { path: 'facts.txt' } }] })),
        'I read it three times',
      ],
      writer: [failure.rejected('bad', 400)],
    });
    const { result } = await run(model, { agent: 'coordinator', prompt: 'delegate' }, [coordinator]);
    expect(result).toMatchObject({ status: 'completed', answer: 'both went wrong' });
    const results = model.requestsOf('coordinator')[1].messages.filter((message) => message.role === 'tool');
    expect(results).toEqual([
      expect.objectContaining({
        toolCallId: 'r1',
        isError: true,
        content: 'Error: the subagent "researcher" ended with status max_iterations: I read it three times',
      }),
      expect.objectContaining({
        toolCallId: 'w1',
        isError: true,
        content: 'Error: the subagent "writer" failed: scripted rejected the request (HTTP 400): bad',
      }),
    ]);
  });

  it('stops nesting at the depth limit: the deepest run is offered no subagents', async () => {
    const model = scriptedModel({
      recursive: Array.from(
        { length: 6 },
        () => (request: ScriptedRequest) =>
          offeredTools(request).includes('recursive') && !request.messages.some((message) => message.role === 'tool')
            ? { toolCalls: [{ name: 'recursive', arguments: { task: 'go deeper' } }] }
            : `depth answer ${request.messages.length}`,
      ),
    });
    const { result, workflowId } = await run(model, { agent: 'recursive', prompt: 'recurse', maxSubagentDepth: 2 }, [recursive]);
    expect(result).toMatchObject({ status: 'completed' });
    const runs: string[] = [];
    for await (const execution of environment.client.workflow.list({ query: `WorkflowId STARTS_WITH "${workflowId}"` }))
      runs.push(execution.workflowId);
    expect(runs.sort()).toHaveLength(3);
    expect(model.requests.filter((request) => !offeredTools(request).includes('recursive'))).toHaveLength(1);
  });

  it('cancels the children when the parent is cancelled, and waits for them to stop', async () => {
    let childCalled: () => void = () => {};
    const childStarted = new Promise<void>((resolve) => (childCalled = resolve));
    const model = scriptedModel({
      coordinator: [{ toolCalls: [{ name: 'writer', arguments: { task: 'take forever' }, id: 'slow' }] }],
      writer: [
        // A model call that lasts until it is cancelled; cancellation reaches an activity through its heartbeats.
        async () => {
          childCalled();
          const context = Context.current();
          const heartbeats = setInterval(() => context.heartbeat(), 200);
          try {
            await context.cancelled;
          } finally {
            clearInterval(heartbeats);
          }
          return 'never';
        },
      ],
    });
    const { result, workflowId } = await run(
      model,
      { agent: 'coordinator', prompt: 'start and stop' },
      [coordinator],
      async (id) => {
        await childStarted;
        await environment.client.workflow.getHandle(id).cancel();
      },
    );
    expect(result).toBeInstanceOf(WorkflowFailedError);
    expect((result as WorkflowFailedError).cause?.name).toBe('CancelledFailure');
    const child = await environment.client.workflow.getHandle(`${workflowId}/slow`).describe();
    expect(child.status.name).toBe('CANCELLED');
  });
});

describe("a subagent speaks for its parent's owner and tenant", () => {
  it("runs under the parent's owner, tenant and --policy: the parent's deny rules, its principals' and tenants', stop the subagent's calls", async () => {
    const place = await makeWorkspace({
      'facts.txt': 'the sky is blue',
      '.env': 'KEY=secret',
      'notes.md': 'notes',
      'ok.txt': 'fine',
    });
    const model = scriptedModel({
      coordinator: [{ toolCalls: [{ name: 'researcher', arguments: { task: 'read everything' }, id: 'r1' }] }, 'read'],
      researcher: [
        {
          toolCalls: [
            { name: 'read_file', arguments: { path: 'facts.txt' }, id: 'f1' },
            { name: 'read_file', arguments: { path: 'docs/../.ENV' }, id: 'f2' },
            { name: 'read_file', arguments: { path: 'notes.md' }, id: 'f3' },
            { name: 'read_file', arguments: { path: 'ok.txt' }, id: 'f4' },
          ],
        },
        'done',
      ],
    });
    // The operator's rules for the run: one for the tenant, one for the owner, one for anyone.
    const policy = {
      rules: [
        { name: 'acme-no-facts', action: 'deny' as const, tools: ['read_file'], paths: ['facts.txt'], tenants: ['acme'] },
        { name: 'alice-no-env', action: 'deny' as const, paths: ['**/.env'], principals: ['alice@example.com'] },
        { name: 'no-notes', action: 'deny' as const, paths: ['notes.md'] },
      ],
    };
    const taskQueue = uniqueTaskQueue('agents');
    const worker = await createTestWorker(environment, { taskQueue, model, agents: [coordinator] });
    const workflowId = `agents-${randomUUID()}`;
    const result = await worker.runUntil(() =>
      environment.client.workflow.execute<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
        taskQueue,
        workflowId,
        args: [resolved({ workspace: place, agent: 'coordinator', prompt: 'research', approval: { policy } })],
        memo: ownerMemo('alice@example.com'),
        priority: { fairnessKey: 'acme' },
      }),
    );
    expect(result).toMatchObject({ status: 'completed', answer: 'read' });
    const refused = (rule: string) => expect.stringContaining(`refused by the approval policy's rule "${rule}"`);
    const results = model.requestsOf('researcher')[1].messages.filter((message) => message.role === 'tool');
    expect(results.map((message) => [message.toolCallId, message.content])).toEqual([
      ['f1', refused('acme-no-facts')],
      ['f2', refused('alice-no-env')],
      ['f3', refused('no-notes')],
      ['f4', 'fine'],
    ]);
    // The child run records the same owner and tenant, so an endpoint checking its owner lets only alice decide there.
    const child = await environment.client.workflow.getHandle(`${workflowId}/r1`).describe();
    expect(child.memo).toEqual(ownerMemo('alice@example.com'));
    expect(child.raw.workflowExecutionInfo?.priority?.fairnessKey).toBe('acme');
  });
});

describe('handoffs', () => {
  it('hands the conversation to another agent, whose instructions, model and tools apply from the next call', async () => {
    const model = scriptedModel({
      triage: [{ toolCalls: [{ name: 'transfer_to_billing', arguments: {}, id: 'handoff_1' }] }],
      billing: ['your invoice is paid'],
    });
    // The stream's handoff event: test/workflow/stream.test.ts.
    const { result } = await run(model, { agent: 'triage', prompt: 'is my invoice paid?' }, [triage]);
    expect(result).toMatchObject({ status: 'completed', answer: 'your invoice is paid', agent: 'billing', iterations: 2 });
    const [first, second] = model.requests;
    expect(first).toMatchObject({ agent: 'triage', model: 'openai:gpt-4o-mini' });
    expect(first.messages[0]).toEqual({ role: 'system', content: 'You route.' });
    expect(offeredTools(first)).toEqual(['transfer_to_billing']);
    expect(second).toMatchObject({ agent: 'billing', model: 'anthropic:claude-haiku-4-5' });
    expect(offeredTools(second)).toEqual([]);
    // The same conversation goes on, under the new agent's instructions: the handoff is in it, answered.
    expect(second.messages).toEqual([
      { role: 'system', content: 'You do billing.' },
      { role: 'user', content: 'is my invoice paid?' },
      { role: 'assistant', content: '', toolCalls: [expect.objectContaining({ id: 'handoff_1', name: 'transfer_to_billing' })] },
      {
        role: 'tool',
        toolCallId: 'handoff_1',
        toolName: 'transfer_to_billing',
        content: 'Transferred the conversation to the agent "billing".',
        isError: false,
      },
    ]);
  });

  it('keeps the agent a handoff chose across continue-as-new', async () => {
    const model = scriptedModel({
      triage: [{ toolCalls: [{ name: 'transfer_to_billing', arguments: {}, id: 'h1' }] }],
      billing: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'facts.txt' } }] }, 'billing answers after the hand-over'],
    });
    const billingWithTools = defineAgent({ ...billing, name: 'billing', tools: ['read_file'] });
    const triageToBilling = defineAgent({ ...triage, name: 'triage', handoffs: [billingWithTools] });
    const { result, workflowId } = await run(model, { agent: 'triage', prompt: 'bill me', continueAsNewAfterModelCalls: 1 }, [
      triageToBilling,
    ]);
    expect(result).toMatchObject({ status: 'completed', agent: 'billing', answer: 'billing answers after the hand-over' });
    let runs = 0;
    for await (const _execution of environment.client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runs++;
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(model.requests.map((request) => request.agent)).toEqual(['triage', 'billing', 'billing']);
  });

  it("refuses a handoff beyond the turn's handoff limit with an error result", async () => {
    const back = defineAgent({ name: 'back', description: 'Sends it back.', model: 'openai:gpt-4o-mini', handoffs: ['forth'] });
    const forth = defineAgent({ name: 'forth', description: 'Sends it forth.', model: 'openai:gpt-4o-mini', handoffs: [back] });
    const model = scriptedModel({
      back: [{ toolCalls: [{ name: 'transfer_to_forth', arguments: {} }] }],
      forth: [{ toolCalls: [{ name: 'transfer_to_back', arguments: {}, id: 'second_handoff' }] }, 'forth keeps it'],
    });
    const { result } = await run(model, { agent: 'back', prompt: 'bounce', maxHandoffs: 1 }, [forth]);
    expect(result).toMatchObject({ status: 'completed', agent: 'forth', answer: 'forth keeps it' });
    expect(model.requests.at(-1)!.messages).toContainEqual(
      expect.objectContaining({
        toolCallId: 'second_handoff',
        isError: true,
        content: 'Error: not run: this turn has used all the handoffs it may make',
      }),
    );
  });
});
