import type { Client } from '@temporalio/client';
import { startAgent, type AgentHandle } from '../../client/start-agent';
import { sendMessage } from '../../client/send-message';
import { defineAgent } from '../../agents/define-agent';
import { openaiReply, type FakeStep } from '../support/fake-model-server';
import { fetchEvents, scheduledActivities, type ScheduledActivity } from '../support/history';
import { stdioServerEntry } from '../support/mcp-test-server';
import { createTestWorker, runAgent, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// What the Web UI shows of a run's steps, read from the server as the UI reads it: the summary on each activity's
// scheduled event and the current details of the built-in metadata query. docs/how-it-works.md: a turn is one user message and its
// answer, an iteration one model call within a turn; every activity has a summary.

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

const model = 'openai:gpt-4o-mini';

async function currentDetails(handle: AgentHandle): Promise<string> {
  const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  return metadata.currentDetails ?? '';
}

/** A model reply held until the test has read what it needs; `release` lets it through. */
function held(reply: FakeStep): { step: FakeStep; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { step: { gate, then: reply }, release };
}

/** Every activity the runs scheduled, child workflows (subagents) included: read from their recorded histories. */
async function everyActivity(client: Client, workflowIds: string[]): Promise<Array<ScheduledActivity & { workflowId: string }>> {
  const all: Array<ScheduledActivity & { workflowId: string }> = [];
  for (const workflowId of workflowIds) {
    const events = await fetchEvents(client, workflowId);
    all.push(...scheduledActivities(events).map((activity) => ({ ...activity, workflowId })));
    const children = events.flatMap((event) => event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? []);
    all.push(...(await everyActivity(client, children)));
  }
  return all;
}

it("labels a session's third turn by its own iterations, in the activity summaries and the current details", async () => {
  const taskQueue = uniqueTaskQueue('turn-labels');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const workspace = await makeWorkspace({ 'alpha.txt': 'alpha says hi' });
  // Turns 1 and 2 call the model twice each (a tool, then the answer): a count across the session would be at 5 by turn 3.
  const readAlpha = (id: string) => openaiReply({ toolCalls: [{ id, name: 'read_file', arguments: { path: 'alpha.txt' } }] });
  const thirdFirst = held(readAlpha('c3'));
  const thirdSecond = held(openaiReply({ content: 'third answer' }));
  bed.server.enqueue(
    readAlpha('c1'),
    openaiReply({ content: 'first answer' }),
    readAlpha('c2'),
    openaiReply({ content: 'second answer' }),
    thirdFirst.step,
    thirdSecond.step,
  );

  await worker.runUntil(async () => {
    const session = await startAgent(
      bed.environment.client,
      { model, session: {}, tools: ['read_file'], workspace },
      { taskQueue },
    );
    expect((await sendMessage(session, 'one')).answer).toBe('first answer');
    expect((await sendMessage(session, 'two')).answer).toBe('second answer');
    const third = sendMessage(session, 'three');

    await waitFor('the third turn to call the model', () => bed.server.requests.length === 5);
    const duringFirstCall = await waitFor('the details of the first call', async () => {
      const details = await currentDetails(session);
      return details.startsWith('**calling model**') && details;
    });
    expect(duringFirstCall).toContain(`**calling model** · turn 3 · iteration 1 of 20 · model \`${model}\``);
    expect(duringFirstCall).toContain('session: 2 message(s) answered');
    thirdFirst.release();

    await waitFor('the third turn to call the model again', () => bed.server.requests.length === 6);
    const duringSecondCall = await waitFor('the details of the second call', async () => {
      const details = await currentDetails(session);
      return details.startsWith('**calling model**') && details.includes('iteration 2') && details;
    });
    expect(duringSecondCall).toContain(`**calling model** · turn 3 · iteration 2 of 20 · model \`${model}\``);
    thirdSecond.release();
    expect((await third).answer).toBe('third answer');
    const after = await waitFor('the session to wait again', async () => {
      const details = await currentDetails(session);
      return details.startsWith('**waiting for message**') && details;
    });
    expect(after).toContain('**waiting for message** · turn 3 · iteration 2 of 20');

    const summaries = scheduledActivities(await fetchEvents(bed.environment.client, session.workflowId)).map(
      (activity) => activity.summary,
    );
    expect(summaries).toEqual([
      'prepare agent default · openai:gpt-4o-mini',
      `${model} turn 1 · iteration 1`,
      'read_file alpha.txt',
      `${model} turn 1 · iteration 2`,
      `${model} turn 2 · iteration 1`,
      'read_file alpha.txt',
      `${model} turn 2 · iteration 2`,
      `${model} turn 3 · iteration 1`,
      'read_file alpha.txt',
      `${model} turn 3 · iteration 2`,
    ]);
    await session.signal('endSession');
    await session.result();
  });
});

it('gives every activity a run starts a summary: setup, MCP listing and tools, model calls, summaries, batches, subagents', async () => {
  const researcher = defineAgent({ name: 'researcher', description: 'Reads files.', model, tools: ['read_file'] });
  const coordinator = defineAgent({
    name: 'coordinator',
    description: 'Delegates, adds with MCP.',
    model,
    tools: ['read_file', 'mcp:*'],
    subagents: [researcher],
  });
  const taskQueue = uniqueTaskQueue('summaries');
  const worker = await createTestWorker(bed.environment, {
    taskQueue,
    env: bed.server.providerEnv,
    agents: [coordinator],
    mcpServers: { calc: stdioServerEntry() },
  });
  const workspace = await makeWorkspace({ 'alpha.txt': 'alpha says hi' });
  const workflowIds = await worker.runUntil(async () => {
    // A coordinator: MCP tools listed and called, a subagent (a child workflow with steps of its own), a built-in tool,
    // and a context budget small enough that older turns are summarised by a model call of their own.
    bed.server.enqueue(
      openaiReply({ content: 'noted' }),
      openaiReply({
        toolCalls: [
          { id: 'add', name: 'calc_add', arguments: { a: 2, b: 3 } },
          { id: 'ask', name: 'researcher', arguments: { task: 'What does alpha.txt say?' } },
          { id: 'read', name: 'read_file', arguments: { path: 'alpha.txt' } },
        ],
      }),
      openaiReply({ toolCalls: [{ id: 'sub', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
      openaiReply({ content: 'alpha says hi' }),
      openaiReply({ content: 'summary of the older turns' }),
      openaiReply({ content: '5, and alpha says hi' }),
    );
    bed.server.respondWith(() => openaiReply({ content: 'ok' }));
    const session = await startAgent(
      bed.environment.client,
      { agent: 'coordinator', session: {}, workspace, context: { maxContextTokens: 50, keepRecentTurns: 1 } },
      { taskQueue },
    );
    await sendMessage(session, 'remember this');
    await sendMessage(session, 'add 2 and 3, and ask the researcher about alpha.txt');
    await session.signal('endSession');
    await session.result();
    // A run whose model calls go through the provider's batch API: submit, status checks, result.
    bed.server.respondWith(() => openaiReply({ content: 'batched' }));
    const batched = await runAgent(bed.environment, taskQueue, {
      prompt: 'hello',
      model,
      workspace,
      batch: { firstCheckSeconds: 0.1, maxCheckIntervalSeconds: 0.4, maxSubmissions: 2 },
    });
    return [session.workflowId, batched.workflowId];
  });

  const activities = await everyActivity(bed.environment.client, workflowIds);
  // The runs did start every kind of activity there is; the check below is over all of them.
  expect(new Set(activities.map((activity) => activity.activityType))).toEqual(
    new Set([
      'prepareRun',
      'listMcpTools',
      'callModel',
      'calc_add',
      'read_file',
      'submitModelBatch',
      'checkModelBatch',
      'readModelBatch',
    ]),
  );
  expect(activities.filter((activity) => !activity.summary?.trim())).toEqual([]);
  expect(activities.map((activity) => activity.summary)).toEqual(expect.arrayContaining([`${model} summary`]));
});
