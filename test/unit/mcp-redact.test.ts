import { loadMcpConfig, parseMcpServers, type McpHttpServer } from '../../mcp/config';
import { mcpServerAddress, redactMcp } from '../../mcp/redact';
import { ConfigurationError } from '../../core/errors';

// What ${VAR} substitution puts into the MCP config, and a URL's userinfo and query, never show in a message.

const env = {
  TOKEN: 'tok-7f3a9c',
  TENANT: 'AcmeCorp',
  USER_NAME: 'deploy-bot',
  PASSWORD: 'pass word',
  API_KEY: 'key-31d0e',
  SHORT: 'on',
};

const servers = parseMcpServers(
  {
    http: {
      url: 'https://${USER_NAME}:${PASSWORD}@${TENANT}.example.com/mcp/${TOKEN}?api_key=${API_KEY}&verbose=${SHORT}',
      headers: { Authorization: 'Bearer ${TOKEN}' },
    },
    stdio: {
      command: 'npx',
      args: ['server', '--token=${TOKEN}', '--mode=${SHORT}', '--dir=${MISSING:-/srv/data}'],
      env: { KEY: '${API_KEY}' },
    },
  },
  { baseDirectory: '/srv', env },
);

it("remembers what substitution put in, and a URL's userinfo and query, as the server's secrets", () => {
  expect(servers.stdio.secrets).toEqual(['tok-7f3a9c', 'key-31d0e']);
  expect(servers.http.secrets).toEqual(
    expect.arrayContaining([
      'deploy-bot',
      'pass word',
      'AcmeCorp',
      'tok-7f3a9c',
      'key-31d0e',
      'deploy-bot:pass%20word',
      'api_key=key-31d0e&verbose=on',
    ]),
  );
  // Values under 4 characters are not secrets (every "on" would go), and a fallback is written in the file itself.
  expect(servers.stdio.secrets).not.toContain('on');
  expect(servers.stdio.secrets).not.toContain('/srv/data');
});

it('shows an HTTP server without userinfo, query or substituted values, whatever case or encoding the URL gave them', () => {
  const url = (servers.http as McpHttpServer).url;
  expect(mcpServerAddress(servers.http)).toBe('https://***.example.com/mcp/***');
  expect(mcpServerAddress(servers.stdio)).toBe('npx server --token=*** --mode=on --dir=/srv/data');
  // fetch quotes the URL as it parsed it: host lower-cased, the password percent-encoded.
  const quoted = `Request cannot be constructed from a URL that includes credentials: ${url}`;
  expect(new URL(url).href).toContain('acmecorp.example.com');
  expect(redactMcp(`${quoted}; parsed: ${new URL(url).href}`, servers)).toBe(
    'Request cannot be constructed from a URL that includes credentials: https://***@***.example.com/mcp/***?***; parsed: https://***@***.example.com/mcp/***?***',
  );
});

it("redacts every server's secrets in any text, such as a server's stderr", () => {
  expect(redactMcp('{"KEY":"key-31d0e","HOME":"/root"} token tok-7f3a9c', servers)).toBe(
    '{"KEY":"***","HOME":"/root"} token ***',
  );
  expect(redactMcp('nothing secret here', servers)).toBe('nothing secret here');
  expect(redactMcp('x', {})).toBe('x');
});

it('keeps secrets carried by a config that is parsed again, as the registry does with what loadMcpConfig read', () => {
  const again = parseMcpServers(servers, { baseDirectory: '/srv' });
  expect(again.http.secrets).toEqual(servers.http.secrets);
  expect(mcpServerAddress(again.http)).toBe('https://***.example.com/mcp/***');
});

it('does not quote a substituted value in the error about a URL it cannot use', () => {
  let message = '';
  try {
    parseMcpServers({ bad: { url: 'ftp://host/${TOKEN}' } }, { baseDirectory: '/', env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    message = (error as Error).message;
  }
  expect(message).toBe('MCP server "bad": url must be an http:// or https:// URL, got "ftp://host/***"');
  expect(loadMcpConfig({})).toEqual({});
});
