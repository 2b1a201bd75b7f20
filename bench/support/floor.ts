import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client } from '@temporalio/client';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { floorActivities } from '../floor/activities';
import type { floorLoop, FloorToolKind } from '../floor/workflows';
import type { ServerSetting } from './bench-server';
import type { BenchEnvironment } from './environment';
import { finishRun, type FinishedRun } from './finished-run';
import { quietLogger } from './log';

/** The floor workflow's model-like activity: iterations are timed from one of its Scheduled events to the next. */
export const floorModelActivityType = 'modelStep';

export interface FloorTarget {
  client: Client;
  taskQueue: string;
}

const floorWorkflowsPath = require.resolve('../floor/workflows');
let bundle: Promise<string> | undefined;
const targets = new WeakMap<BenchEnvironment, Map<ServerSetting, Promise<FloorTarget>>>();

/**
 * A worker for the bare floor workflow on one of the benchmark's servers, with
 * the SDK's default worker options: Temporal's own floor, not ours.
 */
export function floorOn(environment: BenchEnvironment, setting: ServerSetting): Promise<FloorTarget> {
  const perServer = targets.get(environment) ?? new Map<ServerSetting, Promise<FloorTarget>>();
  targets.set(environment, perServer);
  if (!perServer.has(setting)) perServer.set(setting, startFloorWorker(environment, setting));
  return perServer.get(setting)!;
}

/** The floor workflow's bundle, built once: its workers run it, and the replay benchmark replays its histories with it. */
export function floorBundleCode(): Promise<string> {
  bundle ??= bundleWorkflowCode({ workflowsPath: floorWorkflowsPath, logger: quietLogger }).then((built) => built.code);
  return bundle;
}

async function startFloorWorker(environment: BenchEnvironment, setting: ServerSetting): Promise<FloorTarget> {
  const bundleCode = await floorBundleCode();
  const server = await environment.server(setting);
  const taskQueue = `bench-floor-${randomUUID()}`;
  environment.runWorker(
    await Worker.create({
      connection: server.nativeConnection,
      namespace: server.namespace,
      taskQueue,
      workflowBundle: { code: bundleCode },
      activities: floorActivities,
    }),
  );
  return { client: new Client({ connection: server.connection, namespace: server.namespace }), taskQueue };
}

export async function runFloor(
  target: FloorTarget,
  iterations: number,
  toolKind: FloorToolKind,
  deadlineMs: number,
): Promise<FinishedRun<number>> {
  const startedAt = performance.now();
  const handle = await target.client.workflow.start<typeof floorLoop>('floorLoop', {
    taskQueue: target.taskQueue,
    workflowId: `bench-floor-${toolKind}-${iterations}-${randomUUID().slice(0, 8)}`,
    args: [iterations, toolKind],
  });
  return finishRun<number>(target.client, handle, { startedAt, deadlineMs });
}
