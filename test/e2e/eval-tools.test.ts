import { randomUUID } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, realpath, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { WorkflowFailedError } from '@temporalio/client';
import { z } from 'zod';
import { createScratchActivities } from '../../evals/scratch/scratch-activities';
import type { ResolvedAgentInput } from '../../core/input';
import type { AgentResult } from '../../core/result';
import { defineTool } from '../../tools';
import { defineAgent } from '../../agents/define-agent';
import { scriptByAgent } from '../support/script-by-agent';
import type { ToolFixture, UnrecordedToolPolicy } from '../../core/eval-types';
import { agentWorkflowType } from '../../workflows/definitions';
import { activityCalls } from '../support/activity-calls';
import { openaiReply, type FakeToolCall } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { createTestWorker, resolved, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';

// An eval's tools never touch the real workspace: a recorded call gets its fixture and runs nothing; other calls of
// the built-in workspace tools run in a scratch copy (or are refused); the user's own tools are refused; a hostile
// model's escapes from the copy (`..`, absolute paths, symlinks planted in the real workspace) reach nothing.

const bed = useTestBed();
jest.setTimeout(180_000);
afterEach(() => expect(bed.server.refusals).toEqual([]));

const model = 'openai:gpt-4o-mini';
let base: string;
let workspaceRoot: string;
let real: string;
let outside: string;
let scratchRoot: string;
let sideEffects: string;

// The user's tool with a side effect the eval must never cause: it writes a file outside every workspace.
const sendEmail = defineTool({
  name: 'send_email',
  description: 'Sends an email.',
  input: z.object({ to: z.string() }),
  async handler({ to }) {
    await writeFile(path.join(sideEffects, `sent-to-${to}`), 'sent');
    return 'sent';
  },
});

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'eval-tools-'));
  workspaceRoot = path.join(base, 'root');
  real = path.join(workspaceRoot, 'project');
  outside = path.join(base, 'outside');
  scratchRoot = path.join(base, 'scratch');
  sideEffects = path.join(base, 'side-effects');
  for (const directory of [real, outside, sideEffects, path.join(real, 'docs')]) await mkdir(directory, { recursive: true });
  await writeFile(path.join(real, 'alpha.txt'), 'alpha, as on disk');
  await writeFile(path.join(real, 'docs', 'guide.md'), '# guide');
  await writeFile(path.join(outside, 'secret.txt'), 'secret');
  // Planted before the copy: a directory link and a file link out of the workspace.
  await symlink(outside, path.join(real, 'escape'));
  await symlink(path.join(outside, 'secret.txt'), path.join(real, 'link.txt'));
});

/** Every entry under a directory, scratch copies left out: its type, and a file's content or a link's target. */
async function snapshot(directory: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const name of await readdir(directory)) {
    const entry = path.join(directory, name);
    if (entry === scratchRoot) continue;
    const info = await lstat(entry);
    if (info.isSymbolicLink()) found[entry] = `link -> ${await readlink(entry)}`;
    else if (info.isDirectory()) Object.assign(found, { [entry]: 'dir' }, await snapshot(entry));
    else found[entry] = `file ${await readFile(entry, 'utf8')}`;
  }
  return found;
}

function scratchActivities() {
  const activities = createScratchActivities({ workspaceRoot, scratchRoot });
  const environment = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  return {
    make: (key: string) =>
      environment.run(activities.makeScratchWorkspace, { workspace: real, key }) as Promise<{ path: string }>,
    remove: (copy: string) => environment.run(activities.removeScratchWorkspace, { path: copy }) as Promise<void>,
  };
}

async function evalRun(workspace: string, unrecorded: UnrecordedToolPolicy, fixtures: ToolFixture[], calls: FakeToolCall[]) {
  bed.server.enqueue(openaiReply({ toolCalls: calls }), openaiReply({ content: 'done' }));
  const taskQueue = uniqueTaskQueue('eval-tools');
  const worker = await createTestWorker(bed.environment, {
    taskQueue,
    tools: [sendEmail],
    workspaceRoot,
    env: { ...bed.server.providerEnv, AGENT_EVAL_SCRATCH_ROOT: scratchRoot },
  });
  const workflowId = `eval-tools-${randomUUID()}`;
  const input: ResolvedAgentInput = {
    ...resolved({
      prompt: 'do the task',
      model,
      tools: ['read_file', 'write_file', 'list_directory', 'send_email'],
      workspace,
    }),
    evalTools: { fixtures, unrecorded },
  };
  const result = await worker.runUntil(
    bed.environment.client.workflow.execute<(input: ResolvedAgentInput) => Promise<AgentResult>>(agentWorkflowType, {
      taskQueue,
      workflowId,
      args: [input],
    }),
  );
  const calls2 = activityCalls(await fetchEvents(bed.environment.client, workflowId));
  return { result, activities: calls2.filter((call) => call.activityType !== 'callModel' && call.activityType !== 'prepareRun') };
}

/** The tool results the model got back in its second request, by call id. */
function resultsSent(): Record<string, string> {
  const messages = bed.server.requests.at(-1)!.body.messages as Array<{ role: string; tool_call_id?: string; content: string }>;
  return Object.fromEntries(
    messages.filter((message) => message.role === 'tool').map((message) => [message.tool_call_id, message.content]),
  );
}

it('answers the recorded call from its fixture, runs the rest in a scratch copy, and a hostile model reaches nothing real', async () => {
  const before = await snapshot(base);
  const { make, remove } = scratchActivities();
  const { path: scratch } = await make('case-1/candidate-a');
  // Idempotent: the same key gives the same copy, not a second one.
  expect((await make('case-1/candidate-a')).path).toBe(scratch);
  expect(path.dirname(scratch)).toBe(await realpath(scratchRoot));
  // Regular files and directories only: the planted links are not in the copy.
  expect((await readdir(scratch)).sort()).toEqual(['alpha.txt', 'docs']);
  const fixture: ToolFixture = {
    tool: 'read_file',
    arguments: '{"path":"alpha.txt"}',
    content: 'alpha, as recorded',
    isError: false,
  };

  const { result, activities } = await evalRun(
    scratch,
    'scratch',
    [fixture],
    [
      { id: 'recorded', name: 'read_file', arguments: { path: 'alpha.txt' } },
      { id: 'new', name: 'write_file', arguments: { path: 'new.txt', content: 'made in the scratch' } },
      { id: 'dotdot', name: 'write_file', arguments: { path: '../../root/project/pwned.txt', content: 'x' } },
      { id: 'absolute', name: 'write_file', arguments: { path: path.join(real, 'alpha.txt'), content: 'x' } },
      { id: 'outside', name: 'write_file', arguments: { path: path.join(outside, 'secret.txt'), content: 'x' } },
      { id: 'via-link', name: 'write_file', arguments: { path: 'escape/secret.txt', content: 'x' } },
      { id: 'link', name: 'read_file', arguments: { path: 'link.txt' } },
      { id: 'email', name: 'send_email', arguments: { to: 'boss' } },
    ],
  );
  expect(result.status).toBe('completed');
  const sent = resultsSent();
  // (a) The fixture answered, and no activity ran for that call.
  expect(sent.recorded).toBe('alpha, as recorded');
  expect(activities.map((call) => call.summary)).not.toContain('read_file alpha.txt');
  expect(activities.some((call) => call.activityType === 'read_file' && JSON.stringify(call.input).includes('alpha.txt'))).toBe(
    false,
  );
  // (b) write_file ran, in the scratch copy.
  expect(sent.new).toMatch(/wrote|bytes/i);
  expect(await readFile(path.join(scratch, 'new.txt'), 'utf8')).toBe('made in the scratch');
  // (d) Every escape is an error for the model; `escape/` is a plain new directory of the copy.
  for (const id of ['dotdot', 'absolute', 'outside', 'link']) expect(sent[id]).toMatch(/^Error/);
  expect(await readFile(path.join(scratch, 'escape', 'secret.txt'), 'utf8')).toBe('x');
  // (e) The user's tool was refused: no activity, no side effect.
  expect(sent.email).toMatch(/eval refused this call of send_email/);
  expect(activities.map((call) => call.activityType)).not.toContain('send_email');
  expect(await readdir(sideEffects)).toEqual([]);
  // Every tool activity ran in the scratch copy, told it was an eval's.
  for (const call of activities) expect(call.input).toMatchObject({ workspace: scratch, evalScratch: true });
  // The real workspace and everything around it are as they were.
  expect(await snapshot(base)).toEqual(before);

  await remove(scratch);
  await expect(readdir(scratch)).rejects.toThrow(/ENOENT/);
  await expect(remove(real)).rejects.toThrow(/not a scratch copy/);
  expect(await snapshot(base)).toEqual(before);
});

it('refuses unrecorded calls with refuse, and never runs an eval with tools outside a scratch copy', async () => {
  const before = await snapshot(base);
  // (c) refuse: the run may even name the real workspace, since nothing runs there.
  const { result, activities } = await evalRun(
    real,
    'refuse',
    [],
    [
      { id: 'new', name: 'write_file', arguments: { path: 'new.txt', content: 'x' } },
      { id: 'list', name: 'list_directory', arguments: { path: '.' } },
    ],
  );
  expect(result.status).toBe('completed');
  expect(activities).toEqual([]);
  expect(resultsSent().new).toMatch(/^Error: not run: the eval refused this call of write_file \(unrecorded: refuse\)/);
  expect(await snapshot(base)).toEqual(before);

  // scratch with the real workspace: refused before any model call.
  bed.server.reset();
  const failed = await evalRun(real, 'scratch', [], []).catch((error: unknown) => error);
  expect(failed).toBeInstanceOf(WorkflowFailedError);
  expect((failed as WorkflowFailedError).cause?.message).toMatch(/is not a scratch copy/);
  expect(bed.server.requests).toEqual([]);
  expect(await snapshot(base)).toEqual(before);
});

it('gives a subagent the same rules: it writes in the same scratch copy, and its own tools are refused', async () => {
  const before = await snapshot(base);
  const { make } = scratchActivities();
  const { path: scratch } = await make('case-2/subagent');
  const helper = defineAgent({
    name: 'helper',
    description: 'Writes files.',
    instructions: 'You are the helper.',
    model,
    tools: ['write_file', sendEmail],
  });
  const lead = defineAgent({
    name: 'lead',
    description: 'Delegates.',
    instructions: 'You are the lead.',
    model,
    subagents: [helper],
  });
  scriptByAgent(bed.server, {
    lead: [
      openaiReply({ toolCalls: [{ id: 'delegate', name: 'helper', arguments: { task: 'write it' } }] }),
      openaiReply({ content: 'done' }),
    ],
    helper: [
      openaiReply({
        toolCalls: [
          { id: 'w', name: 'write_file', arguments: { path: 'from-helper.txt', content: 'helped' } },
          { id: 'e', name: 'send_email', arguments: { to: 'boss' } },
        ],
      }),
      openaiReply({ content: 'wrote it' }),
    ],
  });
  const taskQueue = uniqueTaskQueue('eval-tools-subagent');
  const worker = await createTestWorker(bed.environment, {
    taskQueue,
    agents: [lead],
    workspaceRoot,
    env: { ...bed.server.providerEnv, AGENT_EVAL_SCRATCH_ROOT: scratchRoot },
  });
  const workflowId = `eval-tools-subagent-${randomUUID()}`;
  const input: ResolvedAgentInput = {
    ...resolved({ agent: 'lead', prompt: 'get it written', workspace: scratch }),
    evalTools: { fixtures: [], unrecorded: 'scratch' },
  };
  const result = await worker.runUntil(
    bed.environment.client.workflow.execute<(input: ResolvedAgentInput) => Promise<AgentResult>>(agentWorkflowType, {
      taskQueue,
      workflowId,
      args: [input],
    }),
  );
  expect(result.status).toBe('completed');
  const child = activityCalls(await fetchEvents(bed.environment.client, `${workflowId}/delegate`));
  expect(child.map((call) => call.activityType)).toContain('write_file');
  expect(child.map((call) => call.activityType)).not.toContain('send_email');
  expect(await readFile(path.join(scratch, 'from-helper.txt'), 'utf8')).toBe('helped');
  const helperResults = bed.server.requests
    .flatMap((request) => request.body.messages as Array<{ role: string; tool_call_id?: string; content: string }>)
    .filter((message) => message.role === 'tool' && message.tool_call_id === 'e');
  expect(helperResults[0]?.content).toMatch(/eval refused this call of send_email/);
  expect(await readdir(sideEffects)).toEqual([]);
  expect(await snapshot(base)).toEqual(before);
});
