import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { ConfigurationError } from '../../core/errors';
import { buildListing, listingId } from '../../mcp/listing';
import { mcpReference, mcpToolName } from '../../mcp/names';
import { toolResultText } from '../../mcp/tool-result';

const namePattern = /^[a-zA-Z0-9_-]{1,64}$/;
const tool = (name: string, extra: Partial<McpTool> = {}): McpTool => ({ name, inputSchema: { type: 'object' }, ...extra });

describe('mcpToolName', () => {
  it('joins the server and the tool with _, keeping names both APIs accept as they are', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('github_create_issue');
    expect(mcpToolName('my-server', 'get-thing')).toBe('my-server_get-thing');
  });

  it('turns every character a tool name may not hold into _', () => {
    expect(mcpToolName('files.local', 'read file/v2')).toBe('files_local_read_file_v2');
    expect(mcpToolName('db', 'äpfel:zählen')).toBe('db__pfel_z_hlen');
  });

  it('cuts a name over 64 characters the same way every time, ending it with a digest that tells long names apart', () => {
    const long = 'describe_every_resource_in_the_cloud_account_with_all_of_its_tags';
    const name = mcpToolName('cloud', long);
    expect(name).toHaveLength(64);
    expect(name).toMatch(namePattern);
    expect(name).toBe(mcpToolName('cloud', long));
    expect(name.startsWith('cloud_describe_every_resource_in_the_cloud_account_with_')).toBe(true);
    expect(mcpToolName('cloud', `${long}_too`)).not.toBe(name);
    expect(mcpToolName('cloud', `${long}_too`)).toHaveLength(64);
  });
});

describe('mcpReference', () => {
  const servers = ['github', 'files'];
  it('reads mcp:*, mcp:<server> and <server>_<tool> against the configured servers', () => {
    expect(mcpReference('mcp:*', servers)).toEqual({ kind: 'every' });
    expect(mcpReference('mcp:github', servers)).toEqual({ kind: 'server', server: 'github' });
    expect(mcpReference('github_create_issue', servers)).toEqual({ kind: 'tool', servers: ['github'] });
  });

  it('knows nothing of other names', () => {
    expect(mcpReference('mcp:gitlab', servers)).toBeUndefined();
    expect(mcpReference('gitlab_create_issue', servers)).toBeUndefined();
    expect(mcpReference('github_', servers)).toBeUndefined();
    expect(mcpReference('read_file', servers)).toBeUndefined();
  });
});

describe('buildListing', () => {
  it('names every tool <server>_<tool>, in the order of the servers and of their lists, and records the servers that were down', () => {
    const listing = buildListing(
      {
        github: {
          tools: [
            tool('create_issue', {
              description: 'Opens an issue.',
              inputSchema: { type: 'object', $schema: 'x', properties: { title: { type: 'string' } } },
            }),
          ],
        },
        down: { unavailable: 'MCP server "down" could not be reached' },
        files: { tools: [tool('read', { title: 'Read a file' }), tool('stat')] },
      },
      () => undefined,
    );
    expect(listing.tools).toEqual({
      github_create_issue: {
        server: 'github',
        tool: 'create_issue',
        description: 'Opens an issue.',
        parameters: { type: 'object', properties: { title: { type: 'string' } } },
      },
      files_read: { server: 'files', tool: 'read', description: 'Read a file', parameters: { type: 'object' } },
      files_stat: {
        server: 'files',
        tool: 'stat',
        description: 'The tool "stat" of the MCP server "files".',
        parameters: { type: 'object' },
      },
    });
    expect(Object.keys(listing.tools)).toEqual(['github_create_issue', 'files_read', 'files_stat']);
    expect(listing.unavailable).toEqual({ down: 'MCP server "down" could not be reached' });
    expect(listing.id).toBe(listingId(listing.tools));
    expect(listing.id).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses two tools that would get one name, and a name the worker already uses', () => {
    expect(() => buildListing({ db: { tools: [tool('a.b'), tool('a_b')] } }, () => undefined)).toThrow(
      new ConfigurationError(
        'the MCP tools "a.b" of server "db" and "a_b" of server "db" would both be named db_a_b; rename one of the servers in the MCP config',
      ),
    );
    expect(() =>
      buildListing({ read: { tools: [tool('file')] } }, (name) => (name === 'read_file' ? 'a registered tool' : undefined)),
    ).toThrow(
      'the MCP tool "file" of server "read" would be named read_file, which is a registered tool; rename the server in the MCP config',
    );
  });
});

describe('toolResultText', () => {
  it('gives text as it is and says what a text conversation cannot hold', () => {
    expect(
      toolResultText({
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside a.txt' } },
          { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAAAAAA', mimeType: 'application/octet-stream' } },
          { type: 'resource_link', uri: 'file:///c.md', name: 'c.md' },
        ],
      }),
    ).toBe(
      [
        'first',
        '[image (image/png, 3 bytes) not shown]',
        'inside a.txt',
        '[resource file:///b.bin (application/octet-stream, 6 bytes) not shown]',
        '[resource file:///c.md "c.md"]',
      ].join('\n'),
    );
  });

  it('gives structured content as JSON when there is no other content', () => {
    expect(toolResultText({ content: [], structuredContent: { sum: 5 } })).toBe('{"sum":5}');
  });
});
