import { modelActivityType, iterationTimes, type RunHistory } from './history';
import { serverLabels, type ServerSetting } from './bench-server';
import type { BenchEnvironment } from './environment';
import { floorModelActivityType, floorOn, runFloor } from './floor';
import { benchEcho, benchEchoLocal } from './bench-tools';
import { runLoopSession } from './loop-session';

/**
 * The same loop (one model-like step, one tool-like step per iteration) as
 * our agent runs it and as Temporal's bare floor runs it, on a server with or
 * without eager activity execution.
 */
export type LoopKind = 'ours' | 'ours-local-tool' | 'floor' | 'floor-local-tool';

export interface LoopVariant {
  kind: LoopKind;
  setting: ServerSetting;
}

export function variantLabel(variant: LoopVariant): string {
  const what: Record<LoopKind, string> = {
    ours: 'our agent loop',
    'ours-local-tool': 'our agent loop, tool opted in to a local activity',
    floor: 'bare floor workflow',
    'floor-local-tool': 'bare floor, tool as a local activity',
  };
  return `${what[variant.kind]} (${serverLabels[variant.setting]})`;
}

export interface LoopRun {
  variant: LoopVariant;
  completed: boolean;
  outcome: string;
  runs: RunHistory[];
  /** Per-iteration times from the history, in order. */
  times: number[];
}

export async function runLoopVariant(environment: BenchEnvironment, variant: LoopVariant, iterations: number): Promise<LoopRun> {
  const deadlineMs = 60_000 + 500 * iterations;
  if (variant.kind === 'ours' || variant.kind === 'ours-local-tool') {
    const tool = variant.kind === 'ours' ? benchEcho.name : benchEchoLocal.name;
    const session = await runLoopSession(environment, iterations, await environment.agentOn(variant.setting), tool);
    return { variant, ...session, times: iterationTimes(session.runs, modelActivityType) };
  }
  const target = await floorOn(environment, variant.setting);
  const run = await runFloor(target, iterations, variant.kind === 'floor' ? 'activity' : 'local', deadlineMs);
  return { variant, ...run, times: iterationTimes(run.runs, floorModelActivityType) };
}
