import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createAgentMcpServer, type AgentMcpServerOptions } from './agent-server';
import { createModernAgentMcpServer } from './modern-server';

/**
 * `agent mcp` over stdio, for clients of both revisions, decided by the connection's first message as the official
 * SDK decides it (its serveStdio): an `initialize` without the 2026-07-28 `_meta` claim, or any message without the
 * claim, is a 2025-11-25 client, served by the `@modelcontextprotocol/sdk` 1.x server (agent-server.ts: elicitation,
 * the 2025 tasks); anything else goes to `@modelcontextprotocol/server` 2.x's serveStdio, modern only, with our
 * 2026-07-28 server (modern-server.ts). Both speak through this one stdin/stdout transport. `closed` resolves when
 * the client closes its end (or the server closes).
 */
export function serveAgentMcpStdio(options: AgentMcpServerOptions): { closed: Promise<void>; close(): Promise<void> } {
  const wire = new StdioServerTransport();
  let ended = false;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const end = () => {
    ended = true;
    resolveClosed();
  };
  // The SDK's stdio transport does not notice the end of its input; the client closing it is the end of this server.
  process.stdin.once('end', end);
  const channel = new Channel(wire);
  let close: () => Promise<void> = () => wire.close();
  wire.onclose = () => {
    end();
    channel.onclose?.();
  };
  wire.onerror = (error) => channel.onerror?.(error);
  wire.onmessage = (first) => {
    wire.onmessage = (message) => channel.onmessage?.(message);
    if (isLegacyOpening(first)) {
      const server = createAgentMcpServer(options, 'local');
      close = () => server.close();
      void server.connect(channel).then(() => channel.onmessage?.(first));
    } else {
      const served = serveStdio(() => createModernAgentMcpServer(options, 'local', () => ended), {
        transport: channel as never,
        legacy: 'reject',
        onerror: (error) => options.log(`agent mcp: ${error.message}`),
      });
      close = () => served.close();
      channel.onmessage?.(first);
    }
  };
  void wire.start();
  return { closed, close: () => close().catch(() => undefined) };
}

/** Whether the first message of a connection is 2025-era traffic: no 2026-07-28 `_meta` claim, or `initialize`. */
export function isLegacyOpening(message: JSONRPCMessage): boolean {
  const params = 'params' in message ? (message.params as { _meta?: Record<string, unknown> } | undefined) : undefined;
  const claim = params?._meta?.[PROTOCOL_VERSION_META_KEY];
  return typeof claim !== 'string' || ('method' in message && message.method === 'initialize' && claim < '2026-07-28');
}

/** The connection as the server of its revision sees it: the stdio wire, started once, here. */
class Channel {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  constructor(private readonly wire: StdioServerTransport) {}

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.wire.send(message);
  }

  close(): Promise<void> {
    return this.wire.close();
  }
}
