import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadMcpConfig, parseMcpServers } from '../../mcp/config';
import { configurationProblem } from '../support/configuration-problem';

async function configFile(content: string): Promise<{ directory: string; file: string }> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'mcp-config-'));
  const file = path.join(directory, 'mcp.json');
  await writeFile(file, content);
  return { directory, file };
}

it("reads the common mcpServers format: stdio servers run in the file's directory, ${VAR} comes from the environment", async () => {
  const { directory, file } = await configFile(
    JSON.stringify({
      mcpServers: {
        files: { command: 'npx', args: ['-y', 'some-server', '${HOME}'], env: { TOKEN: '${GITHUB_TOKEN}' } },
        tools: { type: 'stdio', command: './server', cwd: 'servers', disabled: false, autoApprove: ['x'] },
        remote: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${API_TOKEN:-none}' } },
        off: { command: 'never-started', disabled: true },
      },
    }),
  );
  const servers = loadMcpConfig({ AGENT_MCP_CONFIG: 'mcp.json', HOME: '/home/me', GITHUB_TOKEN: 'ghp_secret' }, directory);
  expect(servers).toEqual({
    // What the environment put in is kept out of every message (mcp/redact.ts); the fallback "none" is in the file.
    files: {
      transport: 'stdio',
      command: 'npx',
      args: ['-y', 'some-server', '/home/me'],
      env: { TOKEN: 'ghp_secret' },
      cwd: directory,
      secrets: ['/home/me', 'ghp_secret'],
    },
    tools: { transport: 'stdio', command: './server', args: [], env: {}, cwd: path.join(directory, 'servers') },
    remote: { transport: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer none' } },
  });
  expect(Object.keys(servers)).toEqual(['files', 'tools', 'remote']);
  // An absolute path is read as it is.
  expect(loadMcpConfig({ AGENT_MCP_CONFIG: file, HOME: '/h', GITHUB_TOKEN: 't' })).toMatchObject({
    files: { command: 'npx', args: ['-y', 'some-server', '/h'] },
  });
  expect(loadMcpConfig({})).toEqual({});
});

it.each([
  ['a file that is not there', null, /AGENT_MCP_CONFIG=missing\.json: cannot read .*missing\.json: ENOENT/],
  ['text that is not JSON', '{"mcpServers": ', /is not valid JSON/],
  ['JSON without mcpServers', '{"servers": {}}', /must hold \{"mcpServers": \{"<name>": \{\.\.\.\}\}\}/],
  [
    'an entry with neither command nor url',
    '{"mcpServers": {"x": {"args": []}}}',
    /MCP server "x": needs "command" \(a stdio server\) or "url"/,
  ],
  [
    'an entry with both',
    '{"mcpServers": {"x": {"command": "a", "url": "http://b"}}}',
    /MCP server "x": give either "command" \(stdio\) or "url"/,
  ],
  [
    'the deprecated SSE transport',
    '{"mcpServers": {"x": {"type": "sse", "url": "http://b/sse"}}}',
    /MCP server "x": the HTTP\+SSE transport \(type "sse"\) is deprecated and not supported/,
  ],
  [
    'a URL that is not http',
    '{"mcpServers": {"x": {"url": "ftp://b"}}}',
    /MCP server "x": url must be an http:\/\/ or https:\/\/ URL, got "ftp:\/\/b"/,
  ],
  ['args that are not strings', '{"mcpServers": {"x": {"command": "a", "args": [1]}}}', /MCP server "x": args\.0: /],
  [
    'an unset variable',
    '{"mcpServers": {"x": {"command": "a", "env": {"KEY": "${NOT_SET_ANYWHERE}"}}}}',
    /MCP server "x": env\.KEY uses \$\{NOT_SET_ANYWHERE\}, which is not set/,
  ],
  [
    'two servers whose tools would share names',
    '{"mcpServers": {"my.server": {"command": "a"}, "my_server": {"command": "b"}}}',
    /MCP server "my_server": its tools would be named like those of "my\.server" \(my_server_…\)/,
  ],
])('refuses %s, naming the file and the server', async (_case, content, expected) => {
  const { directory } = await configFile(content ?? '{}');
  const message = configurationProblem(() =>
    loadMcpConfig({ AGENT_MCP_CONFIG: content === null ? 'missing.json' : 'mcp.json' }, directory),
  );
  expect(message).toMatch(expected);
  expect(message).toMatch(/^AGENT_MCP_CONFIG=/);
});

it('checks servers given in code the same way, without reading the environment', () => {
  expect(parseMcpServers({ a: { command: 'x', args: ['${HOME}'] } }, { baseDirectory: '/srv' })).toEqual({
    a: { transport: 'stdio', command: 'x', args: ['${HOME}'], env: {}, cwd: '/srv' },
  });
  expect(
    configurationProblem(() => parseMcpServers({ [`a${'b'.repeat(40)}`]: { command: 'x' } }, { baseDirectory: '/' })),
  ).toMatch(/the name is over 39 characters/);
});
