import type { FakeModelServer, FakeStep, ReceivedRequest } from './fake-model-server';

/** The first user message of an OpenAI chat request: the run's prompt (its text parts, when it carries images too). */
export function promptOf(request: ReceivedRequest): string {
  const first = request.body.messages?.find((message: { role: string }) => message.role === 'user');
  if (typeof first?.content === 'string') return first.content;
  if (!Array.isArray(first?.content)) return '';
  return (first.content as Array<{ type: string; text?: string }>)
    .flatMap((part) => (part.type === 'text' ? [part.text] : []))
    .join('');
}

/**
 * Answers each run from a script of its own, keyed by its prompt, since the model calls of runs that share a worker
 * interleave in any order. The requests each run sent are kept by prompt for assertions.
 */
export function scriptByPrompt(server: FakeModelServer, scripts: Record<string, FakeStep[]>): Record<string, ReceivedRequest[]> {
  const received: Record<string, ReceivedRequest[]> = Object.fromEntries(Object.keys(scripts).map((prompt) => [prompt, []]));
  server.respondWith((request) => {
    const prompt = promptOf(request);
    received[prompt]?.push(request);
    const step = scripts[prompt]?.shift();
    return step ?? { status: 500, json: { error: { message: `no scripted answer for the prompt "${prompt}"` } } };
  });
  return received;
}

/** The tool results (role "tool") a request carried, by call id. */
export function toolResultsOf(request: ReceivedRequest): Record<string, string> {
  const results = request.body.messages.filter((message: { role: string }) => message.role === 'tool');
  return Object.fromEntries(
    results.map((message: { tool_call_id: string; content: string }) => [message.tool_call_id, message.content]),
  );
}
