import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Client, Connection } from '@temporalio/client';
import { defineAgent } from '../../agents/define-agent';
import { createAgentRegistry } from '../../agents/registry';
import type { AgentInput } from '../../core/resolve-input';
import { createAgentMcpServer } from '../../serve/mcp/agent-server';
import { MemoryAttachmentStore } from '../../storage/attachment-store';
import { elfBytes, pngBytes } from '../support/attachment-files';

// Files sent with an agent tool's call, through the MCP SDK's Client against the in-process server: checked and stored
// before the run starts, or refused with the reason and nothing started. Temporal is never reached: the client's
// workflow.start is watched, and answers with an error once it has recorded what it was asked to start.

const reader = defineAgent({
  name: 'reader',
  description: 'Reads what it is sent.',
  model: 'openai:gpt-4o-mini',
  acceptsAttachments: true,
});
const textOnly = defineAgent({
  name: 'text_only',
  description: 'Reads text, on a model without image input.',
  model: 'openai:gpt-3.5-turbo',
  acceptsAttachments: true,
});
const plain = defineAgent({ name: 'plain', description: 'Takes a prompt only.', model: 'openai:gpt-4o-mini' });

const png = pngBytes(2_000);
let store: MemoryAttachmentStore;
let started: AgentInput[];
let mcp: McpClient;

beforeEach(async () => {
  store = new MemoryAttachmentStore();
  started = [];
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  jest.spyOn(temporal.workflow, 'start').mockImplementation(async (_type, options) => {
    started.push(options.args![0] as AgentInput);
    throw new Error('no Temporal here');
  });
  const server = createAgentMcpServer(
    {
      client: temporal,
      taskQueue: 'none',
      registry: createAgentRegistry({ agents: [reader, textOnly, plain] }),
      agents: ['reader', 'text_only', 'plain'],
      inputFor: (name) => ({ agent: name, workspace: '/tmp' }),
      approvalTimeoutMs: 1000,
      log: () => undefined,
      attachments: store,
    },
    'local',
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  mcp = new McpClient({ name: 'files', version: '1.0.0' });
  await mcp.connect(clientSide);
});
afterEach(() => mcp.close());

const file = (name: string, mimeType: string, bytes: Uint8Array) => ({
  name,
  mimeType,
  data: Buffer.from(bytes).toString('base64'),
});

it('offers files only on the tool of an agent that declares it takes them', async () => {
  const { tools } = await mcp.listTools();
  const schemas = Object.fromEntries(tools.map((tool) => [tool.name, tool.inputSchema]));
  expect(schemas.reader!.properties).toHaveProperty('files');
  expect(schemas.reader!.properties!.files).toMatchObject({
    type: 'array',
    maxItems: 10,
    items: { required: ['name', 'mimeType', 'data'] },
  });
  expect(schemas.reader!.required).toEqual(['prompt']);
  expect(schemas.plain!.properties).not.toHaveProperty('files');
});

it('stores a PNG before the run starts, and the run gets its reference only', async () => {
  await expect(
    mcp.callTool({ name: 'reader', arguments: { prompt: 'What is this?', files: [file('chart.png', 'image/png', png)] } }),
  ).rejects.toThrow(/no Temporal here/);
  expect(started).toHaveLength(1);
  expect(started[0]!.attachments).toEqual([
    {
      type: 'attachment',
      ref: expect.stringMatching(/^[0-9a-f]{64}$/),
      mediaType: 'image/png',
      size: png.length,
      name: 'chart.png',
    },
  ]);
  expect(Buffer.from(store.objects.get(started[0]!.attachments![0]!.ref)!)).toEqual(png);
  expect(JSON.stringify(started[0])).not.toContain(png.toString('base64').slice(0, 40));
});

it('an ELF sent as image/png is a tool error with the reason, nothing stored, no run started', async () => {
  const result = await mcp.callTool({
    name: 'reader',
    arguments: { prompt: 'Look', files: [file('cat.png', 'image/png', png), file('innocent.png', 'image/png', elfBytes())] },
  });
  expect(result).toMatchObject({ isError: true });
  expect((result.content as Array<{ text: string }>)[0]!.text).toBe(
    '[files refused, no run started: attachment "innocent.png" refused: the bytes are an executable (ELF), not image/png]',
  );
  expect(started).toEqual([]);
  expect(store.writes).toBe(0);
});

it('refuses base64 that is not, a file over the bound, a field of its own, and an image to a model without image input', async () => {
  const refusal = async (files: unknown[], agent = 'reader') => {
    const result = await mcp.callTool({ name: agent, arguments: { prompt: 'Look', files } });
    expect(result.isError).toBe(true);
    return (result.content as Array<{ text: string }>)[0]!.text;
  };
  expect(await refusal([{ name: 'a.png', mimeType: 'image/png', data: 'iVBOR w0K!!' }])).toMatch(
    /files\[0\]\.data \(a\.png\) is not base64/,
  );
  expect(await refusal([{ name: 'big.png', mimeType: 'image/png', data: 'A'.repeat(28 * 1024 * 1024) }])).toMatch(
    /files\[0\] \(big\.png\) is over 20971520 bytes/,
  );
  expect(await refusal([{ ...file('a.png', 'image/png', png), uri: 'file:///etc/passwd' }])).toMatch(
    /files\[0\] has no field "uri"/,
  );
  expect(await refusal([file('a.exe', 'application/x-msdownload', elfBytes())])).toMatch(
    /media type "application\/x-msdownload" is not accepted/,
  );
  expect(await refusal([file('chart.png', 'image/png', png)], 'text_only')).toMatch(/openai:gpt-3\.5-turbo takes no images/);
  expect(started).toEqual([]);
});

it('refuses files to an agent that does not declare it takes them, as an argument it does not have', async () => {
  await expect(
    mcp.callTool({ name: 'plain', arguments: { prompt: 'Look', files: [file('chart.png', 'image/png', png)] } }),
  ).rejects.toThrow(/plain takes only "prompt", not files/);
  expect(started).toEqual([]);
  expect(store.writes).toBe(0);
});
