import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { AgentError } from '../core/errors';
import { loadOnce } from '../core/load-once';
import type { McpServerConfig, McpServers } from './config';
import { mcpServerAddress, redactMcp } from './redact';

/** The server could not be started or reached, or went away mid-call: worth another attempt, on a fresh connection. */
export class McpServerUnavailable extends AgentError {}

/** The server answered with a protocol error (an unknown tool, invalid parameters): another attempt would get the same. */
export class McpRequestRefused extends AgentError {}

export interface McpRequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * A 2026-07-28 server's `input_required` answer to tools/call: what it asks (elicitations, keyed by its ids) and the
 * state to echo back when the call is retried with the answers. A 2025-11-25 connection never gives one.
 */
export interface McpInputRequired {
  inputRequired: { inputRequests: Record<string, unknown>; requestState?: string };
}

export function isInputRequired(result: CallToolResult | McpInputRequired): result is McpInputRequired {
  return typeof (result as Partial<McpInputRequired>).inputRequired === 'object';
}

/** A tools/call retried with the answers to an `input_required` (MCP 2026-07-28's multi round-trip). */
export interface McpRetry {
  inputResponses: Record<string, unknown>;
  requestState?: string;
}

/**
 * The calls a connection makes, whichever MCP revision it speaks: 2025-11-25 (`@modelcontextprotocol/sdk` 1.x's
 * Client) or 2026-07-28 (`@modelcontextprotocol/client` 2.x's, for a server that serves only that revision).
 */
interface Speaker {
  listTools(cursor: string | undefined, options: McpRequestOptions): Promise<{ tools: McpTool[]; nextCursor?: string }>;
  callTool(
    tool: string,
    args: Record<string, unknown>,
    options: McpRequestOptions,
    retry?: McpRetry,
  ): Promise<CallToolResult | McpInputRequired>;
  /** How a failed request is told: the server's own refusal, a timeout (the connection is fine), or trouble. */
  failure(error: unknown): 'refused' | 'timeout' | 'unavailable';
  close(): Promise<void>;
}

interface Connection {
  client: Speaker;
  /** Set once the transport closed (a stdio server exited, say): the next request opens a new connection. */
  closed: boolean;
}

export interface McpConnectionsOptions {
  connectTimeoutMs?: number;
  /**
   * Where a stdio server's stderr goes, a line at a time, redacted: the worker's log (stderr by default), and
   * nowhere else. A server may print anything there (its whole environment, say), so it never goes into an error
   * message or a tool result, which would put it in the run's history.
   */
  log?: (line: string) => void;
}

const clientInfo = { name: 'durable-agent', version: '0.1.0' };

// The MCP SDK loads with the first connection: a CLI or worker without MCP servers starts ~0.2 s sooner without it.
const mcpSdk = loadOnce(loadSdk);
async function loadSdk() {
  const [client, stdio, http, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
  };
}
type McpSdk = Awaited<ReturnType<typeof loadSdk>>;

/** The revision of servers that no longer answer `initialize`. */
const modernRevision = '2026-07-28';

// The 2.x client loads only for a server of that revision.
const modernSdk = loadOnce(async () => {
  const [client, stdio] = await Promise.all([
    import('@modelcontextprotocol/client'),
    import('@modelcontextprotocol/client/stdio'),
  ]);
  return {
    Client: client.Client,
    StreamableHTTPClientTransport: client.StreamableHTTPClientTransport,
    StdioClientTransport: stdio.StdioClientTransport,
    ProtocolError: client.ProtocolError,
    SdkError: client.SdkError,
    SdkErrorCode: client.SdkErrorCode,
    isInputRequiredResult: client.isInputRequiredResult,
  };
});
type ModernSdk = Awaited<ReturnType<typeof modernSdk>>;
// A line longer than this is cut in the log: a server that prints without newlines must not grow a buffer forever.
const maxStderrLineChars = 2_000;
// A listing of more tools than this is a server bug (a cursor that never ends), not a toolbox.
const maxListedTools = 5_000;

/**
 * The worker's connections to its MCP servers, one per server, opened on first
 * use and shared by every call (MCP multiplexes requests over one connection).
 * A stdio server is a child process of the worker; when it exits, or any
 * request fails other than with the server's own protocol error, its connection
 * is dropped and the next request starts the server again.
 */
export class McpConnections {
  private readonly connections = new Map<string, Promise<Connection>>();
  private readonly connectTimeoutMs: number;
  private readonly log: (line: string) => void;

  constructor(
    readonly servers: McpServers,
    options: McpConnectionsOptions = {},
  ) {
    this.connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  }

  /** The text with every secret of the MCP config redacted (mcp/redact.ts): for any message that may name a server. */
  redact(text: string): string {
    return redactMcp(text, this.servers);
  }

  get names(): string[] {
    return Object.keys(this.servers);
  }

  /** Every tool the server lists, following its pagination. */
  listTools(server: string, options: McpRequestOptions = {}): Promise<McpTool[]> {
    return this.request(server, options, async (client) => {
      const tools: McpTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor, options);
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined && tools.length < maxListedTools);
      return tools;
    });
  }

  /** The tool's result, or (from a 2026-07-28 server) what it asks before it runs; `retry` answers that. */
  callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: McpRequestOptions = {},
    retry?: McpRetry,
  ): Promise<CallToolResult | McpInputRequired> {
    return this.request(server, options, (client) => client.callTool(tool, args, options, retry));
  }

  /** Closes every connection (stops every stdio server); a later request opens them again. */
  async close(): Promise<void> {
    const open = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(open.map((pending) => pending.then((connection) => this.shut(connection)).catch(() => undefined)));
  }

  private async request<T>(server: string, options: McpRequestOptions, work: (client: Speaker) => Promise<T>): Promise<T> {
    const connection = await this.connection(server);
    try {
      return await work(connection.client);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const failure = connection.client.failure(error);
      if (failure === 'refused') {
        throw new McpRequestRefused(this.redact(`MCP server "${server}" refused the request: ${(error as Error).message}`));
      }
      // A timed-out request says nothing about the connection, and dropping it would fail the server's other calls.
      if (failure !== 'timeout') await this.drop(server, connection);
      throw new McpServerUnavailable(this.redact(`MCP server "${server}" is unavailable: ${describe(error)}`));
    }
  }

  private async connection(server: string): Promise<Connection> {
    // Twice at most: a connection found closed is replaced once; a server that closes again at once is reported.
    for (let round = 0; round < 2; round++) {
      let pending = this.connections.get(server);
      if (!pending) {
        pending = this.open(server);
        this.connections.set(server, pending);
      }
      const current = pending;
      const connection = await current.catch((error: unknown) => {
        if (this.connections.get(server) === current) this.connections.delete(server);
        throw error;
      });
      if (!connection.closed) return connection;
      if (this.connections.get(server) === current) this.connections.delete(server);
    }
    throw new McpServerUnavailable(`MCP server "${server}" is unavailable: it closed the connection as soon as it was opened`);
  }

  private async open(server: string): Promise<Connection> {
    const config = this.servers[server];
    if (!config)
      throw new McpServerUnavailable(
        `MCP server "${server}" is not configured on this worker (it has: ${this.names.join(', ') || 'none'})`,
      );
    try {
      try {
        return await this.openLegacy(server, config);
      } catch (error) {
        if (!servesOnlyModern(error)) throw error;
        return await this.openModern(server, config);
      }
    } catch (error) {
      const what =
        config.transport === 'stdio'
          ? `could not be started (${mcpServerAddress(config)})`
          : `could not be reached at ${mcpServerAddress(config)}`;
      const logNote = config.transport === 'stdio' ? "; its stderr is in the worker's log" : '';
      throw new McpServerUnavailable(this.redact(`MCP server "${server}" ${what}: ${describe(error)}${logNote}`));
    }
  }

  /** A connection of the 2025-11-25 revision: `initialize`, then requests. What every server answered until 2026. */
  private async openLegacy(server: string, config: McpServerConfig): Promise<Connection> {
    const sdk = await mcpSdk();
    const transport = createTransport(sdk, config);
    if (transport instanceof sdk.StdioClientTransport) this.logStderr(server, transport);
    const client = new sdk.Client(clientInfo);
    return this.connected(client, transport, legacySpeaker(client, sdk));
  }

  /** A connection of the 2026-07-28 revision (no handshake: server/discover, then each request says its version). */
  private async openModern(server: string, config: McpServerConfig): Promise<Connection> {
    const sdk = await modernSdk();
    const transport =
      config.transport === 'stdio'
        ? new sdk.StdioClientTransport({
            command: config.command,
            args: config.args,
            env: config.env,
            cwd: config.cwd,
            stderr: 'pipe',
          })
        : new sdk.StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    if (transport instanceof sdk.StdioClientTransport) this.logStderr(server, transport);
    // Form elicitation declared, and input_required handed back rather than fulfilled here: the run asks its person
    // (workflows/tool-questions.ts) and the call is retried with the answer, by another activity, maybe on another worker.
    const client = new sdk.Client(clientInfo, {
      versionNegotiation: { mode: { pin: modernRevision } },
      inputRequired: { autoFulfill: false },
      capabilities: { elicitation: { form: {} } },
    });
    return this.connected(client, transport, modernSpeaker(client, sdk));
  }

  /** Connects a client of either revision (closed again if it cannot), and marks its connection closed when it closes. */
  private async connected(
    client: {
      connect(transport: never, options: { timeout: number }): Promise<void>;
      close(): Promise<void>;
      onclose?: () => void;
    },
    transport: unknown,
    speaker: Connection['client'],
  ): Promise<Connection> {
    const connection: Connection = { client: speaker, closed: false };
    client.onclose = () => {
      connection.closed = true;
    };
    try {
      await client.connect(transport as never, { timeout: this.connectTimeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    return connection;
  }

  /** A stdio server's stderr, line by line and redacted, to the worker's log only. */
  private logStderr(server: string, transport: { stderr: StdioClientTransport['stderr'] }): void {
    let partial = '';
    const emit = (line: string) => {
      if (line.trim()) this.log(`MCP server "${server}" stderr: ${this.redact(line.slice(0, maxStderrLineChars))}`);
    };
    transport.stderr?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      if (partial.length > maxStderrLineChars) {
        lines.push(partial);
        partial = '';
      }
      lines.forEach(emit);
    });
    transport.stderr?.on('end', () => emit(partial));
  }

  private async drop(server: string, connection: Connection): Promise<void> {
    connection.closed = true;
    const pending = this.connections.get(server);
    if (pending && (await pending.catch(() => undefined)) === connection) this.connections.delete(server);
    await this.shut(connection);
  }

  private async shut(connection: Connection): Promise<void> {
    connection.closed = true;
    await connection.client.close().catch(() => undefined);
  }
}

function createTransport(sdk: McpSdk, config: McpServerConfig): StdioClientTransport | StreamableHTTPClientTransport {
  switch (config.transport) {
    case 'stdio':
      return new sdk.StdioClientTransport({
        command: config.command,
        args: config.args,
        env: config.env,
        cwd: config.cwd,
        stderr: 'pipe',
      });
    case 'http':
      return new sdk.StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    default: {
      const exhaustive: never = config;
      throw new Error(`unknown MCP transport ${JSON.stringify(exhaustive)}`);
    }
  }
}

function requestOptions(options: McpRequestOptions) {
  return {
    ...(options.signal && { signal: options.signal }),
    ...(options.timeoutMs !== undefined && { timeout: options.timeoutMs }),
  };
}

function legacySpeaker(client: Client, sdk: McpSdk): Speaker {
  return {
    listTools: (cursor, options) => client.listTools(cursor === undefined ? undefined : { cursor }, requestOptions(options)),
    async callTool(tool, args, options) {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, requestOptions(options));
      // Servers of protocol version 2024-10-07 answer {toolResult}; everything else has content.
      if ('toolResult' in result) return { content: [{ type: 'text', text: JSON.stringify(result.toolResult) }] };
      return result as CallToolResult;
    },
    failure(error) {
      if (!(error instanceof sdk.McpError)) return 'unavailable';
      // The server's own JSON-RPC error answer, as opposed to the SDK's codes for a closed connection or a timeout.
      if (error.code === sdk.ErrorCode.RequestTimeout) return 'timeout';
      return error.code === sdk.ErrorCode.ConnectionClosed ? 'unavailable' : 'refused';
    },
    close: () => client.close(),
  };
}

function modernSpeaker(client: InstanceType<ModernSdk['Client']>, sdk: ModernSdk): Speaker {
  return {
    async listTools(cursor, options) {
      return (await client.listTools(cursor === undefined ? undefined : { cursor }, requestOptions(options))) as {
        tools: McpTool[];
        nextCursor?: string;
      };
    },
    async callTool(tool, args, options, retry) {
      const result = await client.callTool(
        {
          name: tool,
          arguments: args,
          ...(retry && { inputResponses: retry.inputResponses }),
          ...(retry?.requestState !== undefined && { requestState: retry.requestState }),
        } as never,
        { ...requestOptions(options), allowInputRequired: true },
      );
      if (sdk.isInputRequiredResult(result)) {
        return {
          inputRequired: {
            inputRequests: (result.inputRequests ?? {}) as Record<string, unknown>,
            ...(result.requestState !== undefined && { requestState: result.requestState }),
          },
        };
      }
      return result as CallToolResult;
    },
    failure(error) {
      if (error instanceof sdk.ProtocolError) return 'refused';
      return error instanceof sdk.SdkError && error.code === sdk.SdkErrorCode.RequestTimeout ? 'timeout' : 'unavailable';
    },
    close: () => client.close(),
  };
}

/**
 * Whether `initialize` was refused by a server of the 2026-07-28 revision only. It names the revisions it serves: in the
 * message over HTTP (`400 … supported versions: 2026-07-28`), in the error's data over stdio (`-32022 Unsupported
 * protocol version: 2025-11-25`, data `{ supported: ['2026-07-28'] }`), where the message names only ours.
 */
function servesOnlyModern(error: unknown): boolean {
  if (describe(error).includes(modernRevision)) return true;
  const { code, data } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; data?: unknown };
  const supported = (data as { supported?: unknown } | undefined)?.supported;
  return code === unsupportedProtocolVersion && Array.isArray(supported) && supported.includes(modernRevision);
}

/** MCP's error code for a protocol version the server does not serve. */
const unsupportedProtocolVersion = -32022;

function describe(error: unknown): string {
  // Duck-typed: fetch's errors come from Node's own realm, where `instanceof Error` of another realm (a test's) is false.
  const shape = (typeof error === 'object' && error !== null ? error : {}) as {
    message?: unknown;
    cause?: { code?: unknown; message?: unknown };
  };
  if (typeof shape.message !== 'string') return String(error);
  // fetch's "fetch failed" hides the reason (ECONNREFUSED…) in its cause.
  const cause = shape.cause;
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : undefined;
  return detail && !shape.message.includes(detail) ? `${shape.message} (${detail})` : shape.message;
}
