import type { AgentTarget, BenchEnvironment } from './environment';
import { benchEcho } from './bench-tools';
import { toolLoop } from './scripted-model';
import { runSession, type Session } from './session';

/** The loop at its barest: each iteration is one model call asking for one tool that answers at once. */
export function echoLoopScript(iterations: number) {
  return toolLoop(iterations, benchEcho.name);
}

export function runLoopSession(environment: BenchEnvironment, iterations: number, target?: AgentTarget): Promise<Session> {
  return runSession(environment, {
    name: `loop-${iterations}`,
    script: echoLoopScript(iterations),
    tools: [benchEcho.name],
    maxIterations: iterations + 10,
    deadlineMs: 60_000 + 500 * iterations,
    target,
  });
}
