import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startAgent } from '../../client/start-agent';
import type { AgentResult, AgentStatusSnapshot } from '../../core/result';
import { deployed, deployTool, editor } from '../fixtures/approval-team';
import { agentWorkflowType, approveUpdate, messagesQuery, statusQuery, streamTailQuery } from '../../workflows/definitions';
import { collect, lastJsonLine, runCli, spawnCli } from '../support/cli';
import { anthropicReply, openaiReply } from '../support/fake-model-server';
import { completedUpdates, fetchEvents, scheduledActivities } from '../support/history';
import { scriptByAgent } from '../support/script-by-agent';
import { killSpawnedWorkers, spawnWorker } from '../support/spawned-worker';
import { createTestWorker, resolved, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { toolResultsSent } from '../support/wire-results';
import { fileExists, makeWorkspace } from '../support/workspace';

// Human approval of tool calls, end to end: the real provider SDKs against the strict fake server, a worker,
// and the CLI a person types into (`agent run`, `agent approve`, `agent deny`), from "another terminal".

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

// The CLI checks a run's agent and tools against its own AGENT_DEFINITIONS before it starts it: the worker's.
const definitions = path.join(__dirname, '..', 'fixtures', 'approval-team.ts');

type Cli = (args: string[], extraEnv?: Record<string, string>) => ReturnType<typeof runCli>;

/** A worker in this process (with the deploy tool and the editor agent) while `body` drives the CLI against it. */
/** A CLI started without waiting: its result, and what it has printed on stderr so far. */
type Started = ReturnType<typeof collect> & { stderrSoFar(): string };

async function withWorker<T>(body: (cli: Cli, start: (args: string[]) => Started) => Promise<T>): Promise<T> {
  const taskQueue = uniqueTaskQueue('approvals');
  const worker = await createTestWorker(bed.environment, {
    taskQueue,
    env: bed.server.providerEnv,
    tools: [deployTool],
    agents: [editor],
  });
  const env = { ...bed.server.providerEnv, AGENT_TASK_QUEUE: taskQueue, AGENT_DEFINITIONS: definitions };
  return worker.runUntil(() =>
    body(
      (args, extraEnv) => runCli(args, { ...env, ...extraEnv }),
      (args) => {
        const child = spawnCli(args, env, { stdin: 'ignore' });
        let stderr = '';
        child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        return Object.assign(collect(child), { stderrSoFar: () => stderr });
      },
    ),
  );
}

const status = (workflowId: string) => bed.environment.client.workflow.getHandle(workflowId).query(statusQuery);

async function waitForApprovals(workflowId: string, count: number): Promise<AgentStatusSnapshot> {
  return waitFor(`${count} approval(s) waiting on ${workflowId}`, async () => {
    const snapshot = await status(workflowId);
    return snapshot.pendingApprovals.length === count && snapshot;
  });
}

it('a run waits for approval (awaiting_approval in the status query and the Web UI); approve and deny from another terminal, validated', async () => {
  const workspace = await makeWorkspace();
  const id = `approvals-${randomUUID()}`;
  bed.server.enqueue(
    openaiReply({
      toolCalls: [
        { id: 'w1', name: 'write_file', arguments: { path: 'notes.txt', content: 'first' } },
        { id: 'w2', name: 'write_file', arguments: { path: 'other.txt', content: 'second' } },
      ],
    }),
    openaiReply({ content: 'one note written' }),
  );
  await withWorker(async (cli, start) => {
    const run = start([
      'run',
      'write two notes',
      '--approve-tools',
      'write_file',
      '--workspace',
      workspace,
      '--id',
      id,
      '--json',
    ]);
    const waiting = await waitForApprovals(id, 2);
    expect(waiting.phase).toBe('awaiting_approval');
    await waitFor('the run to print the approval request', () =>
      run
        .stderrSoFar()
        .includes(`waiting for approval: write_file "notes.txt" (5 bytes, 1 line); decide with: agent approve ${id} --call w1`),
    );
    expect(waiting.pendingApprovals.map(({ askedAt: _askedAt, ...request }) => request)).toEqual([
      {
        id: 'w1',
        tool: 'write_file',
        summary: 'write_file "notes.txt" (5 bytes, 1 line)',
        description: 'write_file "notes.txt" (5 bytes, 1 line)\n  │ first',
        agents: ['default'],
        rule: 'approveTools',
      },
      {
        id: 'w2',
        tool: 'write_file',
        summary: 'write_file "other.txt" (6 bytes, 1 line)',
        description: 'write_file "other.txt" (6 bytes, 1 line)\n  │ second',
        agents: ['default'],
        rule: 'approveTools',
      },
    ]);
    const metadata = await bed.environment.client.workflow
      .getHandle(id)
      .query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toContain('**awaiting approval**');
    expect(metadata.currentDetails).toContain(
      'awaiting approval · call `w1`\n\n```\nwrite_file "notes.txt" (5 bytes, 1 line)\n  │ first\n```',
    );
    expect(await fileExists(path.join(workspace, 'notes.txt'))).toBe(false);

    const unknown = await cli(['approve', id, '--call', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('approve refused: no tool call "nope" is waiting for approval; waiting: w1, w2');

    const approved = await cli(['approve', id, '--call', 'w1', '--json']);
    expect(approved.code).toBe(0);
    expect(lastJsonLine(approved.stdout)).toEqual({ workflowId: id, approved: ['w1'] });
    await waitFor('notes.txt written', () => fileExists(path.join(workspace, 'notes.txt')));
    const again = await cli(['approve', id, '--call', 'w1']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('approve refused: no tool call "w1" is waiting for approval; waiting: w2');

    const denied = await cli(['deny', id, '--call', 'w2', '--reason', 'one file is enough']);
    expect(denied.code).toBe(0);
    expect(denied.stderr).toContain('denied: w2');

    const finished = await run;
    expect(finished.code).toBe(0);
    expect(lastJsonLine(finished.stdout)).toMatchObject({ status: 'completed', answer: 'one note written' });
    // Without a terminal to ask on, the run says how to decide from elsewhere.
    expect(finished.stderr).toContain(
      `waiting for approval: write_file "notes.txt" (5 bytes, 1 line); decide with: agent approve ${id} --call w1`,
    );
  });
  expect(await readFile(path.join(workspace, 'notes.txt'), 'utf8')).toBe('first');
  expect(await fileExists(path.join(workspace, 'other.txt'))).toBe(false);
  expect(toolResultsSent(bed.server.requests[1])).toEqual([
    { id: 'w1', content: 'wrote 5 bytes to notes.txt' },
    { id: 'w2', content: 'Error: not run: denied: one file is enough' },
  ]);
  // Refused decisions never reached the history; the two accepted ones did, with what they decided. (The other
  // updates are the polls of `agent run` following the run's stream.)
  const updates = completedUpdates(await fetchEvents(bed.environment.client, id));
  expect(updates.filter((update) => update.name !== '__temporal_workflow_stream_poll')).toEqual([
    { name: 'approve', result: ['w1'] },
    { name: 'deny', result: ['w2'] },
  ]);
});

it("a run's --policy: refused look-alikes and a symlink, an allowed write, an asked one approved with edits (asked again), an edit refused", async () => {
  const workspace = await makeWorkspace({ '.env': 'API_KEY=secret\n' });
  await mkdir(path.join(workspace, 'docs'));
  await symlink('../.env', path.join(workspace, 'docs', 'notes.md'));
  const policyFile = path.join(workspace, 'policy.json');
  await writeFile(
    policyFile,
    JSON.stringify({
      rules: [
        { name: 'no-secrets', action: 'deny', paths: ['**/.env'], reason: 'secrets stay with people' },
        { name: 'read-only', action: 'allow', tools: ['read_file', 'list_directory', 'search_files'] },
        { name: 'write-src', action: 'allow', tools: ['write_file'], paths: ['src/**'] },
        { name: 'docs-review', action: 'ask', tools: ['write_file'], paths: ['docs/**'] },
        { name: 'write-elsewhere', action: 'ask', tools: ['write_file'] },
      ],
    }),
  );
  const id = `policy-${randomUUID()}`;
  bed.server.enqueue(
    openaiReply({
      toolCalls: [
        // A hostile model's look-alikes of .env: case, `..`, a symlink the workflow cannot see through.
        { id: 'p1', name: 'write_file', arguments: { path: 'src/../.ENV', content: 'API_KEY=mine' } },
        { id: 'p2', name: 'read_file', arguments: { path: 'docs/notes.md' } },
        { id: 'p3', name: 'write_file', arguments: { path: 'src/a.ts', content: 'export {};' } },
        { id: 'p4', name: 'write_file', arguments: { path: 'README.md', content: 'from the model' } },
        { id: 'p5', name: 'write_file', arguments: { path: 'CHANGES.md', content: 'harmless' } },
      ],
    }),
    openaiReply({ content: 'done what was allowed' }),
  );
  await withWorker(async (cli, start) => {
    const run = start(['run', 'tidy up', '--policy', policyFile, '--workspace', workspace, '--id', id, '--json']);
    const waiting = await waitForApprovals(id, 2);
    expect(waiting.pendingApprovals.map((request) => [request.id, request.rule])).toEqual([
      ['p4', 'write-elsewhere'],
      ['p5', 'write-elsewhere'],
    ]);
    await waitFor('the run to name the rule that asks', () => run.stderrSoFar().includes('(rule write-elsewhere)'));
    await waitFor('src/a.ts, allowed without asking', () => fileExists(path.join(workspace, 'src', 'a.ts')));

    // The update's validator refuses what cannot be taken, whoever sends it: the CLI says what it said.
    const handle = bed.environment.client.workflow.getHandle(id);
    await expect(handle.executeUpdate(approveUpdate, { args: [{ arguments: '{"path":"x.md"}' }] })).rejects.toThrow();
    const notJson = await cli(['approve', id, '--call', 'p4', '--args', '{"path":']);
    expect(notJson.stderr).toContain('approve refused: edited arguments are not valid JSON');
    // The person edits the call in their editor (here a sed script as $EDITOR). Their arguments ask by another rule
    // (docs-review): the call is put to them again, with those arguments.
    const editor = `sed -i -e 's#"README.md"#"docs/NOTES.md"#' -e 's#from the model#from the person#'`;
    const edited = await cli(['approve', id, '--call', 'p4', '--edit'], { VISUAL: '', EDITOR: editor });
    expect(edited.stderr).toContain('approved: p4');
    const again = await waitFor('p4 to ask again with the edit', async () => {
      const request = (await status(id)).pendingApprovals.find((pending) => pending.id === 'p4');
      return request?.edited && request;
    });
    expect(again).toMatchObject({ rule: 'docs-review', edited: true });
    expect(again.description).toContain('docs/NOTES.md');
    expect((await cli(['approve', id, '--call', 'p4'])).code).toBe(0);
    // An edit onto a denied path is refused like the model's own call would be.
    await handle.executeUpdate(approveUpdate, { args: [{ call: 'p5', arguments: '{"path":"./.env","content":"x"}' }] });
    const finished = await run;
    expect(finished.code).toBe(0);
    const messages = await handle.query(messagesQuery);
    const asked = messages.flatMap((message) => (message.role === 'assistant' ? message.toolCalls : []));
    expect(JSON.parse(asked[3].arguments)).toEqual({ path: 'docs/NOTES.md', content: 'from the person' });
    expect(JSON.parse(asked[3].originalArguments!)).toEqual({ path: 'README.md', content: 'from the model' });
    // The deciding rule is on the stream's events (which the run's history carries): the allowed start, the asks,
    // the decisions with the edit, the refusals.
    const tail = await handle.query(streamTailQuery, 0);
    const ruled = tail.events
      .map(({ event }) => event as { type: string; id?: string; rule?: string; edited?: boolean })
      .filter((event) => event.rule !== undefined && event.id !== undefined)
      .map((event) => `${event.type} ${event.id} ${event.rule}${event.edited ? ' edited' : ''}`);
    expect(ruled).toEqual(
      expect.arrayContaining([
        'tool_result p1 no-secrets',
        'tool_start p2 read-only',
        'tool_start p3 write-src',
        'approval_requested p4 write-elsewhere',
        'approval_decided p4 write-elsewhere edited',
        'approval_requested p4 docs-review edited',
        'approval_decided p4 docs-review',
        'tool_start p4 docs-review',
        'approval_decided p5 write-elsewhere edited',
        'tool_result p5 no-secrets',
      ]),
    );
  });
  expect(await readFile(path.join(workspace, '.env'), 'utf8')).toBe('API_KEY=secret\n');
  expect(await readFile(path.join(workspace, 'docs', 'NOTES.md'), 'utf8')).toBe('from the person');
  expect(await fileExists(path.join(workspace, 'README.md'))).toBe(false);
  const refused = `Error: not run: refused by the approval policy's rule "no-secrets": secrets stay with people`;
  expect(toolResultsSent(bed.server.requests[1])).toEqual([
    { id: 'p1', content: refused },
    {
      id: 'p2',
      content: `Error: path "docs/notes.md" is refused by the approval policy's rule "no-secrets": secrets stay with people`,
    },
    { id: 'p3', content: 'wrote 10 bytes to src/a.ts' },
    { id: 'p4', content: 'wrote 15 bytes to docs/NOTES.md' },
    { id: 'p5', content: refused },
  ]);
  // The model sees the call that ran; the conversation keeps the model's own arguments beside it.
  const sent = bed.server.requests[1].body.messages.find((message: { role: string }) => message.role === 'assistant');
  expect(JSON.parse(sent.tool_calls[3].function.arguments)).toEqual({ path: 'docs/NOTES.md', content: 'from the person' });
});

it('an edit a person makes is decided like the model’s call: look-alikes of a denied path and symlinks out are refused', async () => {
  // The workspace inside a directory of its own: whatever lands beside it was written outside the workspace.
  const outside = await makeWorkspace();
  const workspace = path.join(outside, 'workspace');
  await mkdir(path.join(workspace, 'docs'), { recursive: true });
  await writeFile(path.join(workspace, '.env'), 'API_KEY=secret\n');
  await symlink('.env', path.join(workspace, 'notes.md'));
  await mkdir(path.join(outside, 'elsewhere'));
  await symlink(path.join(outside, 'elsewhere'), path.join(workspace, 'out'));
  const policy = {
    rules: [
      { name: 'no-secrets', action: 'deny' as const, paths: ['**/.env', 'secrets/**'], reason: 'secrets stay with people' },
      { name: 'docs-review', action: 'ask' as const, tools: ['write_file'], paths: ['docs/**'] },
      { name: 'writes', action: 'ask' as const, tools: ['write_file'] },
    ],
  };
  // The model asks for harmless writes; the person (or whoever holds the approve update) edits each onto a target.
  const edits: Record<string, string> = {
    e1: 'docs/../.ENV',
    e2: 'ｓｅｃｒｅｔｓ/key.txt',
    e3: 'notes.md',
    e4: 'out/planted.sh',
    e5: 'docs/../../planted.sh',
    e6: 'docs/NEW.md',
  };
  bed.server.enqueue(
    openaiReply({
      toolCalls: Object.keys(edits).map((id) => ({
        id,
        name: 'write_file',
        arguments: { path: `draft-${id}.md`, content: 'draft' },
      })),
    }),
    openaiReply({ content: 'as you edited' }),
  );
  const taskQueue = uniqueTaskQueue('approvals');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  await worker.runUntil(async () => {
    const handle = await startAgent(
      bed.environment.client,
      { prompt: 'write drafts', model: 'openai:gpt-4o-mini', tools: ['write_file'], workspace, approval: { policy } },
      { taskQueue },
    );
    await waitForApprovals(handle.workflowId, 6);
    for (const [call, target] of Object.entries(edits))
      await handle.executeUpdate(approveUpdate, {
        args: [{ call, arguments: JSON.stringify({ path: target, content: 'from the edit' }) }],
      });
    // The edit onto docs/ asks by a rule the person had not answered: asked again, showing the edited call.
    const again = await waitFor('e6 to ask again with the edit', async () => {
      const request = (await status(handle.workflowId)).pendingApprovals.find((pending) => pending.id === 'e6');
      return request?.edited && request;
    });
    expect(again).toMatchObject({ rule: 'docs-review', edited: true });
    expect(again.description).toContain('docs/NEW.md');
    await handle.executeUpdate(approveUpdate, { args: [{ call: 'e6' }] });
    expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'as you edited' });
  });
  const refused = `Error: not run: refused by the approval policy's rule "no-secrets": secrets stay with people`;
  const results = Object.fromEntries(toolResultsSent(bed.server.requests[1]).map((result) => [result.id, result.content]));
  expect(results.e1).toBe(refused);
  expect(results.e2).toBe(refused);
  // The symlink is seen only when the tool opens it: the tool refuses, naming the rule.
  expect(results.e3).toBe(
    `Error: path "notes.md" is refused by the approval policy's rule "no-secrets": secrets stay with people`,
  );
  // Out of the workspace, through a symlink or `..`: the tools' own confinement refuses.
  expect(results.e4).toMatch(/^Error: .*outside the workspace/);
  expect(results.e5).toMatch(/^Error: .*outside the workspace/);
  expect(results.e6).toBe('wrote 13 bytes to docs/NEW.md');
  expect(await readFile(path.join(workspace, '.env'), 'utf8')).toBe('API_KEY=secret\n');
  expect(await readdir(path.join(outside, 'elsewhere'))).toEqual([]);
  expect((await readdir(outside)).sort()).toEqual(['elsewhere', 'workspace']);
  expect((await readdir(workspace)).sort()).toEqual(['.env', 'docs', 'notes.md', 'out']);
  expect(await readFile(path.join(workspace, 'docs', 'NEW.md'), 'utf8')).toBe('from the edit');
});

it('a call no one approves within --approval-timeout is not run, and the model is told so (Anthropic)', async () => {
  const workspace = await makeWorkspace();
  bed.server.enqueue(
    anthropicReply({ toolCalls: [{ id: 'toolu_w', name: 'write_file', arguments: { path: 'late.txt', content: 'too late' } }] }),
    anthropicReply({ text: 'nobody approved the write' }),
  );
  const run = await withWorker((_cli, start) =>
    start([
      'run',
      'write it',
      '--model',
      'anthropic:claude-haiku-4-5',
      '--approve-tools',
      'write_file',
      '--approval-timeout',
      '1',
      '--workspace',
      workspace,
      '--json',
    ]),
  );
  expect(run.code).toBe(0);
  expect(lastJsonLine(run.stdout)).toMatchObject({ status: 'completed', answer: 'nobody approved the write' });
  expect(toolResultsSent(bed.server.requests[1])).toEqual([
    { id: 'toolu_w', content: 'Error: not run: no one approved it within 1 s' },
  ]);
  expect(await fileExists(path.join(workspace, 'late.txt'))).toBe(false);
});

it("a tool's own needsApproval picks the calls by their arguments; the others run meanwhile; --yes approves everything", async () => {
  const workspace = await makeWorkspace();
  const deployBoth = () =>
    openaiReply({
      toolCalls: [
        { id: 'd1', name: 'deploy', arguments: { target: 'staging' } },
        { id: 'd2', name: 'deploy', arguments: { target: 'production' } },
      ],
    });
  bed.server.enqueue(
    deployBoth(),
    openaiReply({ content: 'deployed twice' }),
    deployBoth(),
    openaiReply({ content: 'deployed without asking' }),
  );
  deployed.length = 0;
  const id = `deploy-${randomUUID()}`;
  await withWorker(async (_cli, start) => {
    const run = start(['run', 'deploy', '--tools', 'deploy', '--workspace', workspace, '--id', id, '--json']);
    const waiting = await waitForApprovals(id, 1);
    expect(waiting.pendingApprovals[0]).toMatchObject({ id: 'd2', summary: 'deploy {"target":"production"}' });
    await waitFor('the staging deploy, which needs no approval', () => deployed.includes('staging'));
    expect(deployed).toEqual(['staging']);
    // From anywhere with a Temporal client: the update the CLI sends, approving every call waiting.
    const approved = await bed.environment.client.workflow.getHandle(id).executeUpdate(approveUpdate, { args: [{}] });
    expect(approved).toEqual(['d2']);
    expect((await run).code).toBe(0);
    expect(deployed).toEqual(['staging', 'production']);

    const unasked = await start(['run', 'deploy', '--tools', 'deploy', '--yes', '--workspace', workspace, '--json']);
    expect(unasked.code).toBe(0);
    expect(lastJsonLine(unasked.stdout)).toMatchObject({ answer: 'deployed without asking' });
    expect(unasked.stderr).not.toContain('waiting for approval');
  });
  // With --yes both calls of the second run start at once, as parallel activities: in either order.
  expect(deployed.slice(0, 2)).toEqual(['staging', 'production']);
  expect(deployed.slice(2).sort()).toEqual(['production', 'staging']);
});

it("a subagent's approval request surfaces at the top-level run with the agents that asked, and is decided there", async () => {
  const workspace = await makeWorkspace();
  const id = `editor-${randomUUID()}`;
  scriptByAgent(bed.server, {
    editor: [
      anthropicReply({ toolCalls: [{ id: 'toolu_sub', name: 'writer', arguments: { task: 'write report.txt' } }] }),
      anthropicReply({ text: 'the writer wrote the report' }),
    ],
    writer: [
      openaiReply({ toolCalls: [{ id: 'call_w', name: 'write_file', arguments: { path: 'report.txt', content: 'all good' } }] }),
      openaiReply({ content: 'report written' }),
    ],
  });
  await withWorker(async (cli, start) => {
    const run = start([
      'run',
      'get the report written',
      '--agent',
      'editor',
      '--approve-tools',
      'write_file',
      '--workspace',
      workspace,
      '--id',
      id,
      '--json',
    ]);
    const top = await waitForApprovals(id, 1);
    expect(top.phase).toBe('awaiting_approval');
    expect(top.pendingApprovals.map(({ askedAt: _askedAt, ...request }) => request)).toEqual([
      {
        id: 'toolu_sub/call_w',
        tool: 'write_file',
        summary: 'write_file "report.txt" (8 bytes, 1 line)',
        description: 'write_file "report.txt" (8 bytes, 1 line)\n  │ all good',
        agents: ['editor', 'writer'],
        rule: 'approveTools',
      },
    ]);
    // The child run, whose call it is, waits on it under its own id.
    expect((await status(`${id}/toolu_sub`)).pendingApprovals).toMatchObject([{ id: 'call_w', agents: ['writer'] }]);

    // The run's CLI (no terminal) says how to decide it; it polls, so the decision waits until it has said so.
    const asked = 'waiting for approval: write_file "report.txt" (8 bytes, 1 line) (asked by editor → writer)';
    await waitFor('the run to print the approval request', () => run.stderrSoFar().includes(asked));
    const approved = await cli(['approve', id, '--call', 'toolu_sub/call_w']);
    expect(approved.code).toBe(0);
    const finished = await run;
    expect(finished.code).toBe(0);
    expect(lastJsonLine(finished.stdout)).toMatchObject({ status: 'completed', answer: 'the writer wrote the report' });
    expect((await status(id)).pendingApprovals).toEqual([]);
  });
  expect(await readFile(path.join(workspace, 'report.txt'), 'utf8')).toBe('all good');
});

it('a run due to continue as new while a round waits for approval does, and the next run finishes the round', async () => {
  const workspace = await makeWorkspace({ 'seen.txt': 'x' });
  const taskQueue = uniqueTaskQueue('approval-can');
  const id = `approval-can-${randomUUID()}`;
  bed.server.enqueue(
    openaiReply({
      toolCalls: [
        { id: 'w1', name: 'write_file', arguments: { path: 'saved.txt', content: 'kept' } },
        { id: 'l1', name: 'list_directory', arguments: {} },
      ],
    }),
    openaiReply({ content: 'saved' }),
  );
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const result = await worker.runUntil(async () => {
    const handle = await bed.environment.client.workflow.start<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
      taskQueue,
      workflowId: id,
      args: [
        resolved({
          prompt: 'save it',
          model: 'openai:gpt-4o-mini',
          tools: ['write_file', 'list_directory'],
          workspace,
          approval: { tools: ['write_file'] },
          continueAsNewAfterModelCalls: 1,
        }),
      ],
    });
    // The listing finishes, the write waits: the run continues as new, and the new run waits on.
    await waitFor(
      'the first run to continue as new',
      async () =>
        (await bed.environment.client.workflow.getHandle(id, handle.firstExecutionRunId).describe()).status.name ===
        'CONTINUED_AS_NEW',
    );
    const waiting = await waitForApprovals(id, 1);
    expect(waiting.pendingApprovals[0]).toMatchObject({ id: 'w1', summary: 'write_file "saved.txt" (4 bytes, 1 line)' });
    const approved = await runCli(['approve', id, '--call', 'w1'], { ...bed.server.providerEnv, AGENT_TASK_QUEUE: taskQueue });
    expect(approved.code).toBe(0);
    return bed.environment.client.workflow.getHandle(id).result();
  });
  expect(result).toMatchObject({ status: 'completed', answer: 'saved' });
  expect(await readFile(path.join(workspace, 'saved.txt'), 'utf8')).toBe('kept');
  const [w1, l1] = toolResultsSent(bed.server.requests[1]);
  expect(w1).toEqual({ id: 'w1', content: 'wrote 4 bytes to saved.txt' });
  expect(l1.id).toBe('l1');
  expect(l1.content).toContain('seen.txt');
  expect(bed.server.requests).toHaveLength(2);
});

it('a pending approval survives the worker being killed: another worker takes the decision and runs the call', async () => {
  const workspace = await makeWorkspace();
  const taskQueue = uniqueTaskQueue('approval-crash');
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'after-crash.txt', content: 'still here' } }] }),
    openaiReply({ content: 'written after the crash' }),
  );
  const startWorker = (identity: string) =>
    spawnWorker({ address: process.env.TEST_TEMPORAL_ADDRESS!, taskQueue, identity, env: bed.server.providerEnv });
  try {
    const workerA = await startWorker('worker-a');
    const handle = await startAgent(
      bed.environment.client,
      { prompt: 'write it', model: 'openai:gpt-4o-mini', tools: ['write_file'], workspace, approval: { tools: ['write_file'] } },
      { taskQueue },
    );
    await waitForApprovals(handle.workflowId, 1);
    await workerA.kill();
    await startWorker('worker-b');
    const approved = await runCli(['approve', handle.workflowId], { ...bed.server.providerEnv, AGENT_TASK_QUEUE: taskQueue });
    expect(approved.code).toBe(0);
    expect(approved.stderr).toContain('approved: w1');
    expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'written after the crash' });
    const scheduled = scheduledActivities(await fetchEvents(bed.environment.client, handle.workflowId));
    expect(scheduled.filter((activity) => activity.activityType === 'write_file')).toHaveLength(1);
  } finally {
    await killSpawnedWorkers();
  }
  expect(await readFile(path.join(workspace, 'after-crash.txt'), 'utf8')).toBe('still here');
});
