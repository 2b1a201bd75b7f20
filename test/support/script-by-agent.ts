import type { FakeModelServer, FakeStep, ReceivedRequest } from './fake-model-server';

/**
 * The agent a request came from, read off the wire: its instructions are the
 * system prompt, and the test agents' instructions start "You are [the] <name>."
 */
export function agentOf(request: ReceivedRequest): string {
  const first = request.body.messages?.[0];
  const system: string = request.path.includes('/messages')
    ? (request.body.system ?? '')
    : first?.role === 'system'
      ? first.content
      : '';
  return /You are (?:the )?([\w ]+?)\./.exec(system)?.[1] ?? 'nobody';
}

/** Answers each agent from a script of its own, since the calls of parallel subagents interleave. */
export function scriptByAgent(server: FakeModelServer, scripts: Record<string, FakeStep[]>): void {
  server.respondWith((request) => {
    const agent = agentOf(request);
    const step = scripts[agent]?.shift();
    return step ?? { status: 500, json: { error: { message: `no scripted answer for the agent "${agent}"` } } };
  });
}
