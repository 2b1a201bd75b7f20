/** A JSON-RPC message as a client transport reads it. */
type WireMessage = {
  id?: string | number;
  method?: string;
  params?: { progressToken?: string | number; message?: string };
  result?: unknown;
};

/**
 * Every message a client's transport reads, in the order it read them. Set before `connect`: both SDKs' clients
 * keep a transport's `onmessage` and call it first. What the server sent is then told apart from what the client
 * passed on: a client hands progress to its listener a microtask late, and drops one read in the same chunk as the
 * result (serve/mcp/progress.ts), so only the wire says whether the server sent it first.
 */
export function tapWire(transport: { onmessage?: (message: never, extra?: never) => void }): WireMessage[] {
  const wire: WireMessage[] = [];
  transport.onmessage = (message: WireMessage) => void wire.push(message);
  return wire;
}

/**
 * The progress messages the server sent for the call that started run `runId` before that call's answer (the
 * first names the run), or undefined while the answer has not been read. A call's progress token is its request id
 * in both SDKs' clients.
 */
export function progressBeforeAnswer(wire: WireMessage[], runId: string): string[] | undefined {
  const isProgress = (message: WireMessage) => message.method === 'notifications/progress';
  const first = wire.find((message) => isProgress(message) && message.params?.message?.startsWith(`run ${runId} started`));
  if (!first) return undefined;
  const token = first.params!.progressToken;
  const answer = wire.findIndex((message) => message.id !== undefined && message.method === undefined && message.id === token);
  if (answer < 0) return undefined;
  return wire
    .slice(0, answer)
    .filter((message) => isProgress(message) && message.params?.progressToken === token)
    .map((message) => message.params!.message!);
}
