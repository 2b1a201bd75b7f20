import { parseArgs } from 'node:util';
import type { ScheduleOverlapPolicy } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import type { AgentInput } from '../../core/resolve-input';
import {
  agentScheduleDescription,
  createAgentSchedule,
  describeAgentSchedule,
  listAgentSchedules,
  type AgentScheduleView,
} from '../../schedules/agent-schedules';
import { boundsForAgent, scheduleBoundsFromEnv } from '../../schedules/bounds';
import { whenProblem, type ScheduleWhen } from '../../schedules/when';
import { defaultAgentName } from '../../core/limits';
import { cliRegistry } from '../registry';
import { assertStartable } from '../check-run';
import { connect } from '../connect';
import { UsageError } from '../help';
import type { Output } from '../output';
import { printable } from '../terminal-text';
import { agentInputFromFlags, agentOptions, attachNegativeNumbers, tenancyFromFlags } from './agent-flags';

const overlapPolicies: Record<string, ScheduleOverlapPolicy> = {
  skip: 'SKIP',
  'buffer-one': 'BUFFER_ONE',
  'buffer-all': 'BUFFER_ALL',
  'cancel-other': 'CANCEL_OTHER',
  'terminate-other': 'TERMINATE_OTHER',
  'allow-all': 'ALLOW_ALL',
};

// A scheduled run is followed by nobody as it runs: `agent show` reads it after.
const { stream: _stream, 'no-stream': _noStream, ...runOptions } = agentOptions;

/** The subcommands that act on one schedule by its id, and what each says it did. */
const actions = { pause: 'paused', unpause: 'unpaused', trigger: 'triggered', delete: 'deleted' } as const;

/**
 * `agent schedule create|list|describe|pause|unpause|trigger|delete`: Temporal Schedules that start agent runs
 * (docs/schedules.md). One parseArgs for every subcommand, so a flag a subcommand does not take is named as unknown.
 */
export async function scheduleCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: attachNegativeNumbers(argv),
    allowPositionals: true,
    options: {
      ...runOptions,
      cron: { type: 'string' },
      at: { type: 'string' },
      timezone: { type: 'string' },
      overlap: { type: 'string' },
      'catchup-window': { type: 'string' },
      note: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [subcommand, ...rest] = positionals;
  if (subcommand === 'create') {
    if (rest.length !== 1) throw new UsageError('schedule create takes exactly one prompt, in quotes');
    return create(rest[0], values, output);
  }
  if (subcommand === 'list') {
    if (rest.length !== 0) throw new UsageError('schedule list takes no arguments');
    return withClient(output, async (client) => {
      const schedules = await listAgentSchedules(client);
      if (values.json) output.result(JSON.stringify({ schedules }));
      else if (schedules.length === 0) output.result('no agent schedules');
      else output.result(schedules.map(line).join('\n'));
      return 0;
    });
  }
  if (subcommand === 'describe') {
    const scheduleId = oneId(subcommand, rest);
    return withClient(output, async (client) => {
      const view = await describeAgentSchedule(client, scheduleId);
      output.result(values.json ? JSON.stringify(view) : details(view));
      return 0;
    });
  }
  if (subcommand !== undefined && Object.hasOwn(actions, subcommand)) {
    const action = subcommand as keyof typeof actions;
    const scheduleId = oneId(action, rest);
    return withClient(output, async (client) => {
      // Only an agent's schedule: the namespace's other schedules are not this command's to change.
      await agentScheduleDescription(client, scheduleId);
      const handle = client.schedule.getHandle(scheduleId);
      if (action === 'pause') await handle.pause(values.note);
      else if (action === 'unpause') await handle.unpause(values.note);
      else if (action === 'trigger') await handle.trigger();
      else await handle.delete();
      output.result(values.json ? JSON.stringify({ scheduleId, action: actions[action] }) : `${actions[action]} ${scheduleId}`);
      return 0;
    });
  }
  throw new UsageError(
    subcommand === undefined
      ? 'schedule takes a subcommand: create, list, describe, pause, unpause, trigger or delete'
      : `unknown schedule subcommand "${subcommand}"; one of: create, list, describe, pause, unpause, trigger, delete`,
  );
}

type ScheduleFlags = Parameters<typeof agentInputFromFlags>[0] & {
  cron?: string;
  at?: string;
  timezone?: string;
  overlap?: string;
  'catchup-window'?: string;
  id?: string;
  tenant?: string;
  priority?: string;
  json?: boolean;
};

async function create(prompt: string, values: ScheduleFlags, output: Output): Promise<number> {
  const when = whenFromFlags(values);
  // A time that names no moment, or one gone by, is refused before anything connects (createAgentSchedule checks again).
  const problem = whenProblem(when, new Date());
  if (problem)
    throw new UsageError(
      problem
        .replace(/^at /, '--at ')
        .replace(/^cron /, '--cron ')
        .replace(/^unknown time zone/, '--timezone: unknown time zone'),
    );
  const overlap = values.overlap === undefined ? undefined : overlapPolicies[values.overlap];
  if (values.overlap !== undefined && !overlap)
    throw new UsageError(`--overlap must be one of ${Object.keys(overlapPolicies).join(', ')}, got "${values.overlap}"`);
  const input: AgentInput = { prompt, ...agentInputFromFlags(values), stream: false };
  // Checked now against the CLI's registry, as `agent run` checks a run: a schedule that could not start is refused.
  await assertStartable(input);
  const tenancy = tenancyFromFlags(values);
  // The agent's own bound (defineAgent's time.maxSchedules) tightens the environment's.
  const agentBound = cliRegistry().agents.get(input.agent ?? defaultAgentName)?.time?.maxSchedules;
  const bounds = boundsForAgent(scheduleBoundsFromEnv(process.env), agentBound);
  return withClient(output, async (client, taskQueue) => {
    const handle = await createAgentSchedule(client, {
      ...(values.id !== undefined && { scheduleId: values.id }),
      when,
      input,
      taskQueue,
      ...tenancy,
      bounds,
      ...(overlap && { overlap }),
      ...(values['catchup-window'] !== undefined && { catchupWindow: values['catchup-window'] as Duration }),
    });
    const view = await describeAgentSchedule(client, handle.scheduleId);
    output.result(values.json ? JSON.stringify(view) : `created ${view.scheduleId}: ${view.when}${nextText(view)}`);
    return 0;
  });
}

function whenFromFlags(values: ScheduleFlags): ScheduleWhen {
  if ((values.cron === undefined) === (values.at === undefined)) throw new UsageError('give one of --cron EXPR and --at TIME');
  if (values.at !== undefined) {
    if (values.timezone !== undefined)
      throw new UsageError('--timezone goes with --cron; give --at with its offset (…Z, …+01:00)');
    return { at: values.at };
  }
  return { cron: values.cron!, ...(values.timezone !== undefined && { timezone: values.timezone }) };
}

function oneId(subcommand: string, rest: string[]): string {
  if (rest.length !== 1) throw new UsageError(`schedule ${subcommand} takes one schedule id`);
  return rest[0];
}

async function withClient(
  output: Output,
  body: (client: Awaited<ReturnType<typeof connect>>['client'], taskQueue: string) => Promise<number>,
): Promise<number> {
  const session = await connect({ ensureWorker: false, log: output.info });
  try {
    return await body(session.client, session.taskQueue);
  } finally {
    await session.close();
  }
}

function nextText(view: AgentScheduleView): string {
  return view.nextRuns.length > 0 ? `; next run ${view.nextRuns[0]}` : '';
}

function line(view: AgentScheduleView): string {
  const state = view.paused ? 'paused' : view.nextRuns.length > 0 ? `next ${view.nextRuns[0]}` : 'no more runs';
  return printable(`${view.scheduleId}  ${view.agent}${view.tenant ? ` (${view.tenant})` : ''}  ${view.when}  ${state}`);
}

function details(view: AgentScheduleView): string {
  return printable(
    [
      `schedule ${view.scheduleId}`,
      `  agent       ${view.agent}${view.tenant ? `, tenant ${view.tenant}` : ''}`,
      `  when        ${view.when}`,
      `  state       ${view.paused ? `paused${view.note ? ` (${view.note})` : ''}` : 'active'}`,
      `  made by     ${view.createdBy}`,
      ...(view.prompt !== undefined ? [`  prompt      ${view.prompt}`] : []),
      `  next runs   ${view.nextRuns.join(', ') || 'none'}`,
      `  runs        ${view.taken ?? view.recentRuns.length} taken, ${view.skipped ?? 0} skipped while one ran`,
      ...view.recentRuns.map((run) => `    ${run.workflowId}  scheduled ${run.scheduledAt}  (agent show ${run.workflowId})`),
    ].join('\n'),
  );
}
