import type { AgentTarget, BenchEnvironment } from './environment';
import { benchEcho } from './bench-tools';
import { toolLoop } from './load-model';
import { runSession, type Session } from './session';

/** The loop at its barest: each iteration is one model call asking for one tool that answers at once. */
export function echoLoopScript(iterations: number, tool = benchEcho.name) {
  return toolLoop(iterations, tool);
}

/** `tool` is bench_echo unless given (bench_echo_local: the same tool as an opt-in local activity). */
export function runLoopSession(
  environment: BenchEnvironment,
  iterations: number,
  target?: AgentTarget,
  tool = benchEcho.name,
): Promise<Session> {
  return runSession(environment, {
    name: `loop-${iterations}`,
    script: echoLoopScript(iterations, tool),
    tools: [tool],
    maxIterations: iterations + 10,
    deadlineMs: 60_000 + 500 * iterations,
    target,
  });
}
