import type { McpServerConfig, McpServers } from './config';

/**
 * What the MCP config holds that must never be shown: the values `${VAR}`
 * substitution put in (a token in a URL's path, a tenant in its host, an API
 * key in an argument or env value), and a URL's userinfo and query. Messages
 * that name a server (listing results and failures in history, the CLI's
 * output, spans, logs) pass through redactMcp, which replaces each with `***`.
 */
export const redacted = '***';

// Shorter values are not secrets, and replacing every "1" or "on" would make messages unreadable.
export const minRedactedLength = 4;

/** The strings of a URL to keep out of messages: its userinfo (whole and parts) and its query (whole and each value). */
export function urlSecrets(url: URL): string[] {
  const userinfo = url.username || url.password ? [`${url.username}:${url.password}`, url.username, url.password] : [];
  const query = url.search ? [url.search.slice(1), ...[...url.searchParams.values()]] : [];
  return [...userinfo, ...query].filter((text) => text.length >= minRedactedLength);
}

/** Every secret of these servers, in each form it may take in a message (as written, and percent-encoded the ways a URL encodes it). */
function secretForms(servers: McpServerConfig[]): string[] {
  const forms = new Set<string>();
  for (const secret of servers.flatMap((server) => server.secrets ?? [])) {
    if (secret.length < minRedactedLength) continue;
    for (const form of [secret, encodeURIComponent(secret), encodeURI(secret), safeDecode(secret)]) forms.add(form);
  }
  // Longest first: a secret that contains another is replaced whole.
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * The text with every secret of the MCP config replaced by `***`: the one
 * redaction every message that names an MCP server goes through. Matching
 * ignores case, because a URL's host is lower-cased when it is parsed. Every
 * server's secrets are redacted, not only those of the server named: an error
 * may quote anything.
 */
export function redactMcp(text: string, servers: McpServers | McpServerConfig): string {
  const configs = isServerConfig(servers) ? [servers] : Object.values(servers);
  const forms = secretForms(configs);
  if (forms.length === 0) return text;
  // Literal alternatives only (escaped): a linear scan, whatever the config holds.
  const pattern = new RegExp(forms.map(escapeRegExp).join('|'), 'gi');
  return text.replace(pattern, redacted);
}

/**
 * Where a server is, fit to show: an HTTP server's URL without userinfo, query
 * and fragment, a stdio server's command and arguments, each redacted.
 */
export function mcpServerAddress(config: McpServerConfig): string {
  switch (config.transport) {
    case 'http': {
      const url = new URL(config.url);
      url.username = '';
      url.password = '';
      url.search = '';
      url.hash = '';
      return redactMcp(url.toString(), config);
    }
    case 'stdio':
      return redactMcp([config.command, ...config.args].join(' '), config);
    default: {
      const exhaustive: never = config;
      throw new Error(`unknown MCP transport ${JSON.stringify(exhaustive)}`);
    }
  }
}

function isServerConfig(value: McpServers | McpServerConfig): value is McpServerConfig {
  const transport = (value as { transport?: unknown }).transport;
  return transport === 'http' || transport === 'stdio';
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
