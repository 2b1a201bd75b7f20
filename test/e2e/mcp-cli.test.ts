import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { lastJsonLine, runCli, runCliProcess } from '../support/cli';
import { openaiReply } from '../support/fake-model-server';
import { stdioServerEntry } from '../support/mcp-test-server';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';

// AGENT_MCP_CONFIG through the CLI and the worker it runs in its own process, with the real openai client
// against the strict fake server: the default agent gets every tool of a stdio server the worker starts.

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

async function mcpConfig(servers: Record<string, unknown>): Promise<string> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'mcp-cli-'));
  const file = path.join(directory, 'mcp.json');
  await writeFile(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

const cli = (args: string[], env: NodeJS.ProcessEnv, run = runCli) =>
  run(args, { ...bed.server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('mcp-cli'), ...env });

it('gives a CLI run every tool of the MCP servers in AGENT_MCP_CONFIG, beside the built-in tools', async () => {
  const config = await mcpConfig({ calc: stdioServerEntry() });
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call_add', name: 'calc_add', arguments: { a: 2, b: 3 } }] }),
    openaiReply({ content: 'It is 5.' }),
  );
  // In a process of its own: no error in anything the process printed, its worker's lines too.
  const run = await cli(
    ['run', 'What is 2 + 3?', '--json', '--workspace', bed.workspace],
    { AGENT_MCP_CONFIG: config },
    runCliProcess,
  );

  expect(run.stderr).not.toContain('error');
  expect(run.code).toBe(0);
  expect(lastJsonLine(run.stdout)).toMatchObject({ status: 'completed', answer: 'It is 5.' });
  const [first, second] = bed.server.requests;
  expect(first.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual([
    'read_file',
    'write_file',
    'list_directory',
    'search_files',
    'calc_add',
    'calc_fail',
    'calc_pid',
  ]);
  expect(second.body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_add', content: '5' });
  expect(run.stderr).toContain('calc_add');
});

it('lists the MCP tools under the names the model sees, and says which server could not be listed', async () => {
  const config = await mcpConfig({ calc: stdioServerEntry(), down: { url: 'http://127.0.0.1:1/mcp' } });
  const listed = await cli(['tools', '--json'], { AGENT_MCP_CONFIG: config });
  expect(listed.code).toBe(1);
  const { tools, mcpServers } = lastJsonLine(listed.stdout) as { tools: Array<{ name: string }>; mcpServers: unknown[] };
  expect(tools.map((tool) => tool.name)).toEqual(['read_file', 'write_file', 'list_directory', 'search_files']);
  expect(mcpServers).toEqual([
    {
      name: 'calc',
      transport: 'stdio',
      address: [stdioServerEntry().command, ...stdioServerEntry().args].join(' '),
      tools: [
        { name: 'calc_add', tool: 'add', description: 'Adds two numbers.' },
        { name: 'calc_fail', tool: 'fail', description: 'Always fails, saying why.' },
        { name: 'calc_pid', tool: 'pid', description: 'The id of the process that answers.' },
      ],
    },
    {
      name: 'down',
      transport: 'http',
      address: 'http://127.0.0.1:1/mcp',
      error: expect.stringMatching(/^MCP server "down" could not be reached at http:\/\/127.0.0.1:1\/mcp: fetch failed/),
    },
  ]);
});

it('refuses a run naming an MCP server the config does not have, and a config it cannot use, before starting anything', async () => {
  const config = await mcpConfig({ calc: stdioServerEntry() });
  const unknown = await cli(['run', 'hi', '--tools', 'read_file,mcp:github', '--workspace', bed.workspace], {
    AGENT_MCP_CONFIG: config,
  });
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain(
    'unknown tools: mcp:github; registered tools: read_file, write_file, list_directory, search_files; MCP servers: calc',
  );

  const broken = await mcpConfig({ calc: { type: 'sse', url: 'http://127.0.0.1:1/sse' } });
  const refused = await cli(['run', 'hi', '--workspace', bed.workspace], { AGENT_MCP_CONFIG: broken });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(
    `error: AGENT_MCP_CONFIG=${broken}: MCP server "calc": the HTTP+SSE transport (type "sse") is deprecated and not supported`,
  );
  expect(bed.server.requests).toHaveLength(0);
});
