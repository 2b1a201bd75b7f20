import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConfigurationError } from '../core/errors';
import { minRedactedLength, redactMcp, urlSecrets } from './redact';
import { mcpServerPrefix } from './names';

/** A server the worker starts and talks to over stdin/stdout. */
export interface McpStdioServer {
  transport: 'stdio';
  command: string;
  args: string[];
  /** Added to the few variables the SDK passes on (HOME, PATH, SHELL, TERM, USER, LOGNAME): the worker's API keys are not. */
  env: Record<string, string>;
  /** Where the command runs: the config file's directory unless the entry says otherwise. */
  cwd: string;
  /** What `${VAR}` substitution put in: kept out of every message (mcp/redact.ts). */
  secrets?: string[];
}

/** A server the worker reaches over streamable HTTP. */
export interface McpHttpServer {
  transport: 'http';
  url: string;
  headers: Record<string, string>;
  /** What `${VAR}` substitution put in, and the URL's userinfo and query: kept out of every message (mcp/redact.ts). */
  secrets?: string[];
}

export type McpServerConfig = McpStdioServer | McpHttpServer;

/** The worker's MCP servers by name, in the order the config lists them. */
export type McpServers = Record<string, McpServerConfig>;

const stringRecord = z.record(z.string(), z.string());

/**
 * One entry of the common `mcpServers` format (Claude Desktop, Claude Code,
 * Cursor, VS Code): `{command, args?, env?, cwd?}` or `{url, headers?}`, with
 * an optional `type`. Keys this engine has no use for are ignored.
 */
const serverEntrySchema = z
  .object({
    type: z.enum(['stdio', 'http', 'streamable-http', 'streamableHttp', 'sse']).optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: stringRecord.optional(),
    cwd: z.string().optional(),
    url: z.string().optional(),
    headers: stringRecord.optional(),
    disabled: z.boolean().optional(),
  })
  .superRefine((entry, context) => {
    const problem = (message: string) => context.addIssue({ code: 'custom', message });
    if (entry.type === 'sse')
      return problem(
        'the HTTP+SSE transport (type "sse") is deprecated and not supported; give the server\'s streamable HTTP endpoint',
      );
    if (entry.command !== undefined && entry.url !== undefined)
      return problem('give either "command" (stdio) or "url" (streamable HTTP), not both');
    if (entry.command === undefined && entry.url === undefined)
      return problem('needs "command" (a stdio server) or "url" (a streamable HTTP server)');
    if (entry.type === 'stdio' && entry.command === undefined) return problem('type "stdio" needs a "command"');
    if (entry.type !== undefined && entry.type !== 'stdio' && entry.url === undefined)
      return problem(`type "${entry.type}" needs a "url"`);
  });

export type McpServerEntry = z.input<typeof serverEntrySchema>;

const fileSchema = z.object({ mcpServers: z.record(z.string(), z.unknown()) });

// Room for the tool's own name after `<server>_` within the 64 characters a tool name may have.
const maxServerPrefixLength = 40;

export interface ParseOptions {
  /** Relative `cwd` entries, and the default working directory of stdio servers. */
  baseDirectory: string;
  /** When given, `${NAME}` and `${NAME:-default}` in commands, arguments, env values, URLs and headers are read from it. */
  env?: NodeJS.ProcessEnv;
  /** Names the source in error messages (`AGENT_MCP_CONFIG=./mcp.json`). */
  source?: string;
}

/**
 * Checks the servers of an `mcpServers` object and gives each its transport.
 * Every mistake is a ConfigurationError naming the server: a worker refuses to
 * start with a config it cannot use.
 */
export function parseMcpServers(raw: Record<string, unknown>, options: ParseOptions): McpServers {
  const source = options.source ? `${options.source}: ` : '';
  const servers: McpServers = {};
  const prefixes = new Map<string, string>();
  for (const [name, value] of Object.entries(raw)) {
    const problem = (text: string) => new ConfigurationError(`${source}MCP server "${name}": ${text}`);
    const parsed = serverEntrySchema.safeParse(value);
    if (!parsed.success)
      throw problem(
        parsed.error.issues
          .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
          .join('; '),
      );
    const entry = parsed.data;
    if (entry.disabled) continue;
    if (!name.trim()) throw problem('a server needs a name');
    const prefix = mcpServerPrefix(name);
    if (prefix.length > maxServerPrefixLength)
      throw problem(`the name is over ${maxServerPrefixLength - 1} characters; its tools are named <server>_<tool> within 64`);
    const other = prefixes.get(prefix);
    if (other !== undefined) throw problem(`its tools would be named like those of "${other}" (${prefix}…); rename one of them`);
    prefixes.set(prefix, name);
    // A config given in code may already be parsed (the registry parses what loadMcpConfig gave): its secrets stay secret.
    const secrets = new Set(carriedSecrets(value));
    const expand = (text: string, field: string) =>
      options.env
        ? interpolate(
            text,
            options.env,
            (variable) => problem(`${field} uses \${${variable}}, which is not set`),
            (substituted) => secrets.add(substituted),
          )
        : text;
    const expandAll = (record: Record<string, string> | undefined, field: string) =>
      Object.fromEntries(Object.entries(record ?? {}).map(([key, text]) => [key, expand(text, `${field}.${key}`)]));
    const withSecrets = () => (secrets.size > 0 ? { secrets: [...secrets] } : {});
    if (entry.command !== undefined) {
      servers[name] = {
        transport: 'stdio',
        command: expand(entry.command, 'command'),
        args: (entry.args ?? []).map((arg, index) => expand(arg, `args[${index}]`)),
        env: expandAll(entry.env, 'env'),
        cwd: path.resolve(options.baseDirectory, entry.cwd ?? '.'),
        ...withSecrets(),
      };
    } else {
      const url = expand(entry.url!, 'url');
      const headers = expandAll(entry.headers, 'headers');
      if (!/^https?:\/\//.test(url) || !URL.canParse(url)) {
        throw problem(
          `url must be an http:// or https:// URL, got "${redactMcp(url, { transport: 'http', url, headers, ...withSecrets() })}"`,
        );
      }
      for (const secret of urlSecrets(new URL(url))) secrets.add(secret);
      servers[name] = { transport: 'http', url, headers, ...withSecrets() };
    }
  }
  return servers;
}

/**
 * The MCP servers named by AGENT_MCP_CONFIG: a JSON file in the common
 * `{"mcpServers": {...}}` format (a relative path is taken from the directory
 * the command ran in). Stdio servers run in the file's directory by default.
 * No variable, no servers.
 */
export function loadMcpConfig(env: NodeJS.ProcessEnv = process.env, from = env.INIT_CWD ?? process.cwd()): McpServers {
  const named = env.AGENT_MCP_CONFIG;
  if (!named) return {};
  const file = path.resolve(from, named);
  const source = `AGENT_MCP_CONFIG=${named}`;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigurationError(`${source}: cannot read ${file}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigurationError(`${source}: ${file} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) throw new ConfigurationError(`${source}: ${file} must hold {"mcpServers": {"<name>": {...}}}`);
  return parseMcpServers(parsed.data.mcpServers, { baseDirectory: path.dirname(file), env, source });
}

/** `${NAME}` and `${NAME:-default}`, as Claude Code reads them in .mcp.json: secrets stay out of the file. */
function interpolate(
  text: string,
  env: NodeJS.ProcessEnv,
  missing: (variable: string) => Error,
  substituted: (value: string) => void,
): string {
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_match, variable: string, fallback: string | undefined) => {
      const value = env[variable];
      if (value !== undefined && value !== '') {
        // Only what came from the environment: a fallback is written in the file for anyone to read.
        if (value.length >= minRedactedLength) substituted(value);
        return value;
      }
      if (fallback !== undefined) return fallback;
      throw missing(variable);
    },
  );
}

function carriedSecrets(value: unknown): string[] {
  const secrets = (value as { secrets?: unknown } | null)?.secrets;
  return Array.isArray(secrets) ? secrets.filter((secret): secret is string => typeof secret === 'string') : [];
}
