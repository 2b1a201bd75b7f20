import { randomUUID } from 'node:crypto';
import { defineAgent } from '../../agents/define-agent';
import { startAgent } from '../../client/start-agent';
import type { AgentStatusSnapshot } from '../../core/result';
import { createAgentSchedule, ScheduleBoundError } from '../../schedules/agent-schedules';
import { scheduledByMemoField } from '../../schedules/schedule-memo';
import { approveUpdate, denyUpdate, statusQuery } from '../../workflows/definitions';
import { lastJsonLine, runCli } from '../support/cli';
import { openaiReply } from '../support/fake-model-server';
import { createTestWorker, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { toolResultsSent } from '../support/wire-results';

// Schedules on the dev server (docs/schedules.md): a person's schedule that fires twice, each firing an ordinary run
// that `agent show` reads and that names its schedule; and the model's schedule_run, which a person approves or
// denies, reading the time with its date and zone, held to the per-agent bound when it asks for more.

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

// Named, not given by value; and at most one live schedule of its own (defineAgent's time.maxSchedules).
const planner = defineAgent({
  name: 'planner',
  description: 'Plans work for later.',
  instructions: 'You schedule work.',
  model: 'openai:gpt-4o-mini',
  tools: ['schedule_run'],
  time: { maxSchedules: 1 },
});

const taskQueue = uniqueTaskQueue('schedules');
const cli = (args: string[]) => runCli(args, { ...bed.server.providerEnv, AGENT_TASK_QUEUE: taskQueue });
const schedules = () => bed.environment.client.schedule;

/** A worker for the file, with the planner. */
async function withWorker<T>(body: () => Promise<T>): Promise<T> {
  const worker = await createTestWorker(bed.environment, { taskQueue, agents: [planner], env: bed.server.providerEnv });
  return worker.runUntil(body);
}

it('fires a person’s cron schedule twice (a trigger and its interval): ordinary runs that name it, read with agent show', async () => {
  const id = `report-${randomUUID()}`;
  // Enough answers for a firing more than the two awaited, should one come before the pause.
  bed.server.enqueue(...[1, 2, 3].map((n) => openaiReply({ content: `report ${n} written` })));
  await withWorker(async () => {
    const created = await cli([
      'schedule',
      'create',
      '--cron',
      '@every 2s',
      '--id',
      id,
      '--json',
      '--workspace',
      bed.workspace,
      'write the report',
    ]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(lastJsonLine(created.stdout)).toMatchObject({
      scheduleId: id,
      agent: 'default',
      when: 'cron "@every 2s" in time zone UTC',
      paused: false,
      createdBy: 'person',
    });
    expect((await cli(['schedule', 'trigger', id, '--json'])).stdout.trim()).toBe(
      JSON.stringify({ scheduleId: id, action: 'triggered' }),
    );
    const fired = await waitFor('two runs of the schedule', async () => {
      const description = await schedules().getHandle(id).describe();
      return description.info.recentActions.length >= 2 && description.info.recentActions;
    });
    expect((await cli(['schedule', 'pause', id, '--note', 'enough'])).code).toBe(0);
    const runs = fired.slice(0, 2).map((action) => action.action.workflow.workflowId);
    for (const workflowId of runs) {
      const handle = bed.environment.client.workflow.getHandle(workflowId);
      expect(await handle.result()).toMatchObject({ status: 'completed', answer: expect.stringMatching(/^report \d written$/) });
      const description = await handle.describe();
      expect(description.memo?.[scheduledByMemoField]).toBe(id);
      expect(await description.staticSummary()).toBe(`schedule ${id}: write the report`);
    }
    const shown = await cli(['show', runs[1], '--json']);
    const shownRun = lastJsonLine(shown.stdout) as { status: string; messages: Array<{ role: string; content?: string }> };
    expect(shownRun.status).toBe('COMPLETED');
    expect(shownRun.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(shownRun.messages[0].content).toBe('write the report');
    const described = lastJsonLine((await cli(['schedule', 'describe', id, '--json'])).stdout);
    expect(described).toMatchObject({ scheduleId: id, paused: true, note: 'enough', prompt: 'write the report' });
    expect((described.recentRuns as Array<{ workflowId: string }>).map((run) => run.workflowId)).toEqual(
      expect.arrayContaining(runs),
    );
    // The list reads the server's visibility store, which may lag the create by a moment.
    await waitFor('the schedule in the list', async () => {
      const listed = lastJsonLine((await cli(['schedule', 'list', '--json'])).stdout).schedules as Array<{ scheduleId: string }>;
      return listed.some((schedule) => schedule.scheduleId === id);
    });
    expect((await cli(['schedule', 'delete', id])).stdout.trim()).toBe(`deleted ${id}`);
    expect((await cli(['schedule', 'describe', id])).stderr).toBe(`error: no schedule named "${id}"\n`);
  });
});

it('asks a person to approve each schedule_run, at a time shown with date and zone; a denied one is not made, and the bound refuses the rest', async () => {
  const soon = new Date(Date.now() + 60 * 60_000);
  soon.setUTCMilliseconds(0);
  const at = soon.toISOString().replace('.000Z', 'Z');
  bed.server.enqueue(
    openaiReply({
      toolCalls: [
        { id: 'c1', name: 'schedule_run', arguments: { prompt: 'check the build', at } },
        { id: 'c2', name: 'schedule_run', arguments: { prompt: 'check it again', cron: '*/5 * * * *' } },
        { id: 'c3', name: 'schedule_run', arguments: { prompt: 'and again', at } },
      ],
    }),
    openaiReply({ content: 'one check scheduled' }),
  );
  const workflowId = `planner-${randomUUID()}`;
  // A tenant of its own: its slots are this test's alone on the shared server.
  const tenant = `acme-${randomUUID().slice(0, 8)}`;
  await withWorker(async () => {
    const handle = await startAgent(
      bed.environment.client,
      { agent: 'planner', prompt: 'schedule the checks', workspace: bed.workspace, maxCostUsd: 0.5 },
      { taskQueue, workflowId, tenant },
    );
    const waiting = await waitFor('three schedule_run calls waiting', async () => {
      const status: AgentStatusSnapshot = await handle.query(statusQuery);
      return status.pendingApprovals.length === 3 && status.pendingApprovals;
    });
    const weekday = soon.toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' });
    expect(waiting.find((request) => request.id === 'c1')!.description).toBe(
      `schedule_run this agent once at ${at.replace('T', ' ').replace('Z', '')} UTC (${weekday})\n  │ check the build`,
    );
    // A cron's first firing is shown as a one-off's time is: its date and zone.
    expect(waiting.find((request) => request.id === 'c2')!.description!.split('\n')[0]).toMatch(
      /^schedule_run this agent cron "\*\/5 \* \* \* \*" in time zone UTC, first at \d{4}-\d{2}-\d{2} \d{2}:\d[05]:00 UTC \(\w+day\)$/,
    );
    await handle.executeUpdate(denyUpdate, { args: [{ call: 'c2', reason: 'not every five minutes' }] });
    await handle.executeUpdate(approveUpdate, { args: [{ call: 'c1' }] });
    await handle.executeUpdate(approveUpdate, { args: [{ call: 'c3' }] });
    expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'one check scheduled' });

    const results = toolResultsSent(bed.server.requests[1]);
    const scheduled = results.filter((result) => result.content.startsWith('scheduled '));
    expect(scheduled).toHaveLength(1);
    expect(scheduled[0].content).toContain(`agent planner, once at ${at.replace('T', ' ').replace('Z', '')} UTC`);
    expect(results.find((result) => result.id === 'c2')!.content).toContain('not every five minutes');
    const refused = results.find((result) => result.id !== 'c2' && result !== scheduled[0])!;
    expect(refused.content).toMatch(/agent "planner" has 1 live schedules .*its most/);

    // The one made: one of the tenant's slot ids, the run that asked, and a run that keeps the caller's budget and tenant.
    const scheduleId = /^scheduled (\S+):/.exec(scheduled[0].content)![1];
    expect(scheduleId).toMatch(new RegExp(`^agent-schedule-${tenant}-\\d+$`));
    const description = await schedules().getHandle(scheduleId).describe();
    try {
      expect(description.memo?.durableAgentSchedule).toEqual({
        version: 1,
        agent: 'planner',
        tenant,
        when: { at },
        createdBy: { run: workflowId },
      });
      expect(description.info.nextActionTimes.map((time) => time.toISOString())).toEqual([soon.toISOString()]);
      // Made paused while its bounds were checked, running once within them.
      expect(description.state).toMatchObject({ paused: false, note: 'schedule_run: within the bounds' });
      const [input] = description.action.args as Array<{ prompt: string; maxCostUsd: number; workspace: string }>;
      // c1 and c3 run at once once approved: either may take the one slot.
      const prompt = scheduled[0].id === 'c1' ? 'check the build' : 'and again';
      expect(input).toMatchObject({ prompt, maxCostUsd: 0.5, workspace: bed.workspace });
      expect(description.action.priority).toMatchObject({ fairnessKey: tenant });
    } finally {
      await schedules().getHandle(scheduleId).delete();
    }
  });
});

/** The tenant's slot ids, as schedule_run makes them. */
const slotsOf = (tenant: string, count: number) =>
  Array.from({ length: count }, (_, index) => `agent-schedule-${tenant}-${index + 1}`);

/** The agent schedules that exist in these slots, read one by one (the list may lag). */
async function existing(ids: string[]): Promise<string[]> {
  const found = await Promise.all(
    ids.map((id) =>
      schedules()
        .getHandle(id)
        .describe()
        .then(() => id)
        .catch(() => undefined),
    ),
  );
  return found.filter((id): id is string => id !== undefined);
}

const inAnHour = () => `${new Date(Date.now() + 3_600_000).toISOString().slice(0, 19)}Z`;

it('holds the per-tenant and per-agent bounds when many runs create schedules at the same moment', async () => {
  const run = (tenant: string, agent: string, index: number, bounds: { perAgent: number; perTenant: number }) =>
    createAgentSchedule(bed.environment.client, {
      when: { at: inAnHour() },
      input: { agent, prompt: `check ${index}`, workspace: bed.workspace },
      taskQueue,
      tenant,
      bounds,
      createdByRun: `run-${index}`,
      slotIds: slotsOf(tenant, bounds.perTenant),
    });
  const settle = async (calls: Array<Promise<{ scheduleId: string }>>) => {
    const outcomes = await Promise.allSettled(calls);
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(ScheduleBoundError);
    return outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.scheduleId] : []));
  };
  // Five runs of three agents, at once, under a tenant bound of two.
  const crowded = `crowd-${randomUUID().slice(0, 8)}`;
  const tenantBounds = { perAgent: 10, perTenant: 2 };
  const made = await settle(Array.from({ length: 5 }, (_, index) => run(crowded, `agent${index % 3}`, index, tenantBounds)));
  // One agent's five runs, at once, under an agent bound of two (the tenant has room for five).
  const busy = `busy-${randomUUID().slice(0, 8)}`;
  const agentBounds = { perAgent: 2, perTenant: 5 };
  const madeByOne = await settle(Array.from({ length: 5 }, (_, index) => run(busy, 'planner', index, agentBounds)));
  try {
    // What the server holds is what the calls say they made: none over a bound, and every refused one deleted.
    expect((await existing(slotsOf(crowded, 2))).sort()).toEqual([...made].sort());
    expect(made.length).toBeLessThanOrEqual(2);
    expect((await existing(slotsOf(busy, 5))).sort()).toEqual([...madeByOne].sort());
    expect(madeByOne.length).toBeLessThanOrEqual(2);
    // The refused left no ghosts behind: the room they did not take is still there.
    const more = await settle(
      Array.from({ length: 2 - madeByOne.length }, (_, index) => run(busy, 'planner', 10 + index, agentBounds)),
    );
    expect(madeByOne.length + more.length).toBe(2);
    madeByOne.push(...more);
    await expect(run(busy, 'planner', 20, agentBounds)).rejects.toThrow(
      /agent "planner" has 2 live schedules of tenant "busy-\w+", its most \(AGENT_MAX_SCHEDULES_PER_AGENT=2\)/,
    );
  } finally {
    await Promise.all([...made, ...madeByOne].map((id) => schedules().getHandle(id).delete()));
  }
});

it('gives a one-off’s id and its place under the bounds back once it has fired', async () => {
  const tenant = `once-${randomUUID().slice(0, 8)}`;
  const bounds = { perAgent: 1, perTenant: 1 };
  const [slot] = slotsOf(tenant, 1);
  const create = (at: string, run: string) =>
    createAgentSchedule(bed.environment.client, {
      when: { at },
      input: { agent: 'planner', prompt: 'check once', workspace: bed.workspace },
      taskQueue: `${taskQueue}-nobody`,
      tenant,
      bounds,
      createdByRun: run,
      slotIds: [slot],
    });
  // Three seconds ahead, in whole seconds (a one-off is a calendar of one second), after its bounds check. Nothing
  // polls its queue: the firing starts a run, which is all this needs.
  const soon = `${new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_000).toISOString().slice(0, 19)}Z`;
  expect((await create(soon, 'run-first')).scheduleId).toBe(slot);
  await expect(create(inAnHour(), 'run-early')).rejects.toThrow(ScheduleBoundError);
  const fired = await waitFor('the one-off to fire', async () => {
    const description = await schedules().getHandle(slot).describe();
    return description.info.recentActions.length === 1 && description.info.nextActionTimes.length === 0 && description;
  });
  const firstRun = fired.info.recentActions[0].action.workflow.workflowId;
  try {
    const again = await create(inAnHour(), 'run-second');
    expect(again.scheduleId).toBe(slot);
    expect((await again.describe()).memo?.durableAgentSchedule).toMatchObject({ createdBy: { run: 'run-second' } });
  } finally {
    await schedules().getHandle(slot).delete();
    await bed.environment.client.workflow.getHandle(firstRun).terminate('test over');
  }
});
