import { isInputRequired, McpConnections, type McpInputRequired } from '../../mcp/connections';
import { stdioServerEntry } from '../support/mcp-test-server';

// Our MCP client over stdio against a server of the 2026-07-28 revision only (`@modelcontextprotocol/server` 2.x's
// serveStdio, legacy refused): the client's 2025-11-25 `initialize` is refused, naming the revision the server serves,
// and the client starts the server again and speaks 2026-07-28 to it (mcp/connections.ts). No Temporal: the client alone.

let connections: McpConnections;
const logged: string[] = [];
beforeAll(() => {
  connections = new McpConnections(
    { modern: { transport: 'stdio', ...stdioServerEntry({ revision: '2026-07-28' }), env: {}, cwd: process.cwd() } },
    { log: (line) => logged.push(line) },
  );
});
afterAll(() => connections.close());

it('falls back from a refused initialize to the 2026-07-28 revision over stdio, and lists and calls its tools', async () => {
  const tools = await connections.listTools('modern');
  expect(tools.map((tool) => tool.name).sort()).toEqual(['add', 'ask', 'pid']);
  expect(await connections.callTool('modern', 'add', { a: 2, b: 3 })).toMatchObject({ content: [{ type: 'text', text: '5' }] });
  // Two processes were started: the one that refused `initialize`, and the one that answers now.
  const started = logged.flatMap((line) => /pid (\d+)/.exec(line)?.[1] ?? []);
  expect(started).toHaveLength(2);
  const answering = await connections.callTool('modern', 'pid', {});
  expect(answering).toMatchObject({ content: [{ type: 'text', text: started[1] }] });
});

it("hands back a tool's input_required over stdio, and a retry with the answer and the state gets the tool's result", async () => {
  const asked = await connections.callTool('modern', 'ask', { topic: 'lunch' });
  expect(isInputRequired(asked)).toBe(true);
  const { inputRequests, requestState } = (asked as McpInputRequired).inputRequired;
  expect(Object.keys(inputRequests)).toEqual(['sure']);
  const answered = await connections.callTool(
    'modern',
    'ask',
    { topic: 'lunch' },
    {},
    { inputResponses: { sure: { action: 'accept', content: { note: 'yes' } } }, requestState },
  );
  expect(answered).toMatchObject({ content: [{ type: 'text', text: 'asked about lunch; the user said: yes' }] });
});
