import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { defineAgent } from '../../agents/define-agent';
import { startAgent } from '../../client/start-agent';
import type { AgentStatusSnapshot } from '../../core/result';
import { approveUpdate, statusQuery } from '../../workflows/definitions';
import { collect, lastJsonLine, runCli, spawnCli } from '../support/cli';
import { openaiReply } from '../support/fake-model-server';
import { stdioServerEntry } from '../support/mcp-test-server';
import { createTestWorker, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { toolResultsSent } from '../support/wire-results';

// Names of tools that need approval (--approve-tools, an agent's approveTools) are checked and expanded like
// tools lists: an unknown name, which used to approve nothing without a word, is refused before anything starts,
// and `mcp:*` / `mcp:<server>` stand for the MCP tools they name, so their calls wait for a person.

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

let mcpConfig: string;
beforeAll(async () => {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'approve-tools-'));
  mcpConfig = path.join(directory, 'mcp.json');
  await writeFile(mcpConfig, JSON.stringify({ mcpServers: { calc: stdioServerEntry() } }));
});

const cliEnv = (taskQueue = uniqueTaskQueue('approve-names')) => ({
  ...bed.server.providerEnv,
  AGENT_TASK_QUEUE: taskQueue,
  AGENT_MCP_CONFIG: mcpConfig,
});

const status = (workflowId: string) => bed.environment.client.workflow.getHandle(workflowId).query(statusQuery);
const waitForApproval = (workflowId: string) =>
  waitFor(`an approval waiting on ${workflowId}`, async () => {
    const snapshot: AgentStatusSnapshot = await status(workflowId);
    return snapshot.pendingApprovals.length === 1 && snapshot;
  });

it('refuses --approve-tools names it does not know (exit 2, nothing started), listing the names it has', async () => {
  for (const names of ['Write_File', 'read_file,mcp:probe', 'calc']) {
    const run = await runCli(['run', 'hi', '--approve-tools', names, '--workspace', bed.workspace, '--json'], cliEnv());
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('MCP servers: calc (tools named <server>_<tool>, or mcp:<server>, mcp:*)');
    expect(run.stderr).not.toContain('workflow');
  }
  const wrongCase = await runCli(['run', 'hi', '--approve-tools', 'Write_File', '--workspace', bed.workspace], cliEnv());
  expect(wrongCase.stderr).toContain(
    'error: unknown tools to approve: Write_File (did you mean write_file?); registered tools: read_file, write_file, list_directory, search_files; MCP servers: calc',
  );
  const chat = await runCli(['chat', '--approve-tools', 'mcp:probe', '--workspace', bed.workspace], cliEnv());
  expect(chat.code).toBe(2);
  expect(chat.stderr).toContain('error: unknown tools to approve: mcp:probe; registered tools:');
  expect(bed.server.requests).toHaveLength(0);
});

it('makes an MCP tool call wait for approval with --approve-tools mcp:*: the model gets its result only once a person approves', async () => {
  const id = `approve-mcp-${randomUUID()}`;
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call_add', name: 'calc_add', arguments: { a: 2, b: 3 } }] }),
    openaiReply({ content: 'It is 5.' }),
  );
  const env = cliEnv();
  const child = spawnCli(
    ['run', 'What is 2 + 3?', '--approve-tools', 'mcp:*', '--id', id, '--json', '--workspace', bed.workspace],
    env,
    { stdin: 'ignore' },
  );
  const run = collect(child);

  const waiting = await waitForApproval(id);
  expect(waiting.phase).toBe('awaiting_approval');
  expect(waiting.pendingApprovals[0]).toMatchObject({ id: 'call_add', tool: 'calc_add' });
  expect(bed.server.requests).toHaveLength(1);

  const approved = await runCli(['approve', id, '--call', 'call_add'], env);
  expect(approved.code).toBe(0);
  const finished = await run;
  expect(finished.code).toBe(0);
  expect(lastJsonLine(finished.stdout)).toMatchObject({ status: 'completed', answer: 'It is 5.' });
  expect(toolResultsSent(bed.server.requests[1])).toEqual([{ id: 'call_add', content: '5' }]);
});

it("makes an agent's own approveTools (an MCP server's selector) wait for approval, the run's names added to it", async () => {
  const adder = defineAgent({
    name: 'adder',
    description: 'Adds.',
    model: 'openai:gpt-4o-mini',
    tools: ['mcp:calc', 'read_file'],
    approveTools: ['mcp:calc'],
  });
  bed.server.enqueue(
    openaiReply({
      toolCalls: [
        { id: 'call_add', name: 'calc_add', arguments: { a: 1, b: 2 } },
        { id: 'call_read', name: 'read_file', arguments: { path: 'missing.txt' } },
      ],
    }),
    openaiReply({ content: 'done' }),
  );
  const taskQueue = uniqueTaskQueue('approve-agent');
  const worker = await createTestWorker(bed.environment, {
    taskQueue,
    env: bed.server.providerEnv,
    agents: [adder],
    mcpServers: { calc: stdioServerEntry() },
  });
  await worker.runUntil(async () => {
    const handle = await startAgent(
      bed.environment.client,
      { agent: 'adder', prompt: 'Add and read', workspace: bed.workspace, approval: { tools: ['read_file'] } },
      { taskQueue },
    );
    await waitFor('both calls waiting', async () => (await status(handle.workflowId)).pendingApprovals.length === 2);
    expect((await status(handle.workflowId)).pendingApprovals.map((request) => request.tool).sort()).toEqual([
      'calc_add',
      'read_file',
    ]);
    expect(bed.server.requests).toHaveLength(1);
    await handle.executeUpdate(approveUpdate, { args: [{}] });
    expect((await handle.result()).answer).toBe('done');
  });
  expect(toolResultsSent(bed.server.requests[1]).map((result) => result.id)).toEqual(['call_add', 'call_read']);
});

it('stops the CLI on an agent definition whose approveTools names an unknown tool, naming the agent and what there is', async () => {
  const definitions = path.join(__dirname, '..', 'fixtures', 'careless-approvals.ts');
  const listed = await runCli(['agents'], { ...cliEnv(), AGENT_DEFINITIONS: definitions });
  expect(listed.code).toBe(1);
  expect(listed.stderr).toContain(
    'agent "careless": approveTools names unknown tools: Write_File (did you mean write_file?) (registered tools: read_file, write_file, list_directory, search_files; MCP servers: calc',
  );
  const run = await runCli(['run', 'hi', '--agent', 'careless', '--workspace', bed.workspace], {
    ...cliEnv(),
    AGENT_DEFINITIONS: definitions,
  });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('agent "careless": approveTools names unknown tools: Write_File (did you mean write_file?)');
  expect(bed.server.requests).toHaveLength(0);
});
