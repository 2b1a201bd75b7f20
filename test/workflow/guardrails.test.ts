import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { z } from 'zod';
import { defineAgent, defineGuardrail } from 'durable-agent';
import { scriptedModel, type ScriptedRequest } from 'durable-agent/testing';
import type { AgentResult } from '../../core/result';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { agentWorkflowType, approveUpdate, endSessionSignal, statusQuery, streamTailQuery } from '../../workflows/definitions';
import { lastJsonLine, runCli } from '../support/cli';
import { connectToTestServer, createTestWorker, resolved, runAgent, uniqueTaskQueue } from '../support/temporal';
import { waitFor } from '../support/wait-for';
import { fileExists, makeWorkspace } from '../support/workspace';
import { chat, newChatId, serveHandler, textOf, userMessage, type ServedHandler } from '../web/chat-client';

// Guardrails through the clients a person uses: `agent send` (its exit code, its --json, the reason on stderr), the
// web chat's `ai` client (the reason shows; the stopped answer's text never does), and one-shot runs for a model
// guardrail (a child run with structured output) and a guardrail that throws (fail closed).

const noPasswords = defineGuardrail({
  name: 'no-passwords',
  checks: 'input',
  check: ({ text }) =>
    /password/i.test(text)
      ? { tripped: true, reason: 'I cannot help with passwords: reset yours at /account.' }
      : { tripped: false },
});
const noSecrets = defineGuardrail({
  name: 'no-secrets',
  checks: 'output',
  check: ({ text }) => (text.includes('SECRET') ? { tripped: true, reason: 'the answer held a credential' } : { tripped: false }),
});
// Beside the model call: the model answers, and its answer is dropped unseen when this trips.
const noRefunds = defineGuardrail({
  name: 'no-refunds',
  checks: 'input',
  runInParallel: true,
  check: ({ text }) => (/refund/i.test(text) ? { tripped: true, reason: 'refunds are handled by a person' } : { tripped: false }),
});
const support = defineAgent({
  name: 'support',
  description: 'answers customers',
  model: 'openai:gpt-4o-mini',
  guardrails: [noPasswords, noSecrets],
});
// No output guardrail: its text streams, but not while an input guardrail runs beside the call.
const sales = defineAgent({ name: 'sales', description: 'sells', model: 'openai:gpt-4o-mini', guardrails: [noRefunds] });
const topicJudge = defineAgent({
  name: 'topic-judge',
  description: 'says whether a request is about code',
  model: 'openai:gpt-4o-mini',
  outputSchema: z.object({ tripped: z.boolean(), reason: z.string() }),
});
const coder = defineAgent({
  name: 'coder',
  description: 'changes code',
  model: 'openai:gpt-4o-mini',
  tools: ['list_directory'],
  guardrails: [defineGuardrail({ name: 'on-topic', checks: 'input', agent: 'topic-judge' })],
});
const fragile = defineAgent({
  name: 'fragile',
  description: 'guarded by a policy service that is down',
  model: 'openai:gpt-4o-mini',
  guardrails: [
    defineGuardrail({
      name: 'policy-service',
      checks: 'input',
      check: () => {
        throw new Error('policy service unreachable');
      },
      activity: { maximumAttempts: 2, timeout: '5s' },
    }),
  ],
});

// Tool-call guardrails: one refuses a call (the model reads why, the turn goes on), one ends the turn.
const checkedCalls: Array<{ text: string; toolCall: unknown }> = [];
const noShellScripts = defineGuardrail({
  name: 'no-shell-scripts',
  checks: 'tool_call',
  check: ({ text, toolCall }) => {
    checkedCalls.push({ text, toolCall });
    const path = (toolCall?.arguments as { path?: string }).path ?? '';
    return path.endsWith('.sh') ? { tripped: true, reason: 'shell scripts are written by people' } : { tripped: false };
  },
});
const envStops = defineGuardrail({
  name: 'env-stops-the-turn',
  checks: 'tool_call',
  onTrip: 'end_turn',
  check: ({ toolCall }) =>
    JSON.stringify(toolCall?.arguments).includes('.env')
      ? { tripped: true, reason: 'this agent does not go near credentials' }
      : { tripped: false },
});
const writer = defineAgent({
  name: 'writer',
  description: 'writes files',
  model: 'openai:gpt-4o-mini',
  tools: ['write_file', 'read_file'],
  guardrails: [noShellScripts, envStops],
});
// A model judges each call, in a child run of its own.
const judgedWriter = defineAgent({
  name: 'judged-writer',
  description: 'writes what a judge lets through',
  model: 'openai:gpt-4o-mini',
  tools: ['write_file'],
  guardrails: [defineGuardrail({ name: 'judged-calls', checks: 'tool_call', agent: 'topic-judge' })],
});
// Every write waits for a person: a call a guardrail refuses is refused before anyone is asked.
const carefulWriter = defineAgent({
  name: 'careful-writer',
  description: 'writes files once a person approves',
  model: 'openai:gpt-4o-mini',
  tools: ['write_file'],
  approveTools: ['write_file'],
  guardrails: [noShellScripts],
});

const lastUser = (request: ScriptedRequest) =>
  request.messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
// The session's first reply waits for this, so that a steering message arrives while its turn runs.
let releaseReply: () => void = () => undefined;
const replyReleased = new Promise<void>((resolve) => (releaseReply = resolve));
const model = scriptedModel(async (request) => {
  const asked = lastUser(request);
  if (request.agent === 'coder' && asked === 'tidy the imports') {
    if (request.messages.at(-1)?.role === 'tool') return 'Tidied.';
    await replyReleased;
    return { toolCalls: [{ name: 'list_directory', arguments: { path: '.' } }] };
  }
  if (request.agent === 'judged-writer')
    return request.messages.at(-1)?.role === 'tool'
      ? 'Judged.'
      : {
          toolCalls: [
            { id: 'j1', name: 'write_file', arguments: { path: 'weather.md', content: 'sunny' } },
            { id: 'j2', name: 'write_file', arguments: { path: 'code.md', content: 'tidy' } },
          ],
        };
  if (request.agent === 'careful-writer') {
    if (request.messages.at(-1)?.role === 'tool') return 'Not written.';
    if (/notes/.test(asked))
      return { toolCalls: [{ id: 'n1', name: 'write_file', arguments: { path: 'notes.md', content: 'n' } }] };
    return { toolCalls: [{ id: 'sh2', name: 'write_file', arguments: { path: 'deploy.sh', content: 'curl x | sh' } }] };
  }
  if (request.agent === 'writer') {
    if (request.messages.at(-1)?.role === 'tool') return 'Wrote what I could.';
    if (/env/.test(asked)) return { toolCalls: [{ id: 'env1', name: 'read_file', arguments: { path: '.env' } }] };
    return {
      toolCalls: [
        { id: 'sh1', name: 'write_file', arguments: { path: 'run.sh', content: 'rm -rf ~' } },
        { id: 'md1', name: 'write_file', arguments: { path: 'notes.md', content: 'notes' } },
      ],
    };
  }
  switch (request.agent) {
    case 'topic-judge':
      return /weather/.test(asked) ? '{"tripped":true,"reason":"not about code"}' : '{"tripped":false,"reason":"about code"}';
    case 'sales':
      return /refund/.test(asked) ? 'Refund issued!' : 'Sold.';
    case 'support':
      return asked === 'what is my api key?' ? 'Your key is SECRET-1234.' : 'Happy to help.';
    default:
      return 'Done.';
  }
});

let environment: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
let served: ServedHandler;
let servedSales: ServedHandler;
let workspace: string;
const taskQueue = uniqueTaskQueue('guardrails');

beforeAll(async () => {
  environment = await connectToTestServer();
  workspace = await makeWorkspace();
  worker = await createTestWorker(environment, {
    taskQueue,
    model,
    agents: [support, sales, topicJudge, coder, fragile, writer, carefulWriter, judgedWriter],
  });
  running = worker.run();
  served = await serveHandler({
    client: environment.client,
    taskQueue,
    authorize: (request) => request.headers.get('x-user') ?? undefined,
    input: { agent: 'support', workspace },
  });
  servedSales = await serveHandler({
    client: environment.client,
    taskQueue,
    authorize: (request) => request.headers.get('x-user') ?? undefined,
    input: { agent: 'sales', workspace },
  });
});
afterAll(async () => {
  await served?.close();
  await servedSales?.close();
  worker?.shutdown();
  await running;
  await environment?.teardown();
});

const requestsOf = (agent: string) => model.requests.filter((request) => request.agent === agent);

it('agent send: a tripped guardrail exits 5 with its reason, the model never sees the message, and the session goes on', async () => {
  const workflowId = `guarded-${Date.now()}`;
  await environment.client.workflow.start<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
    taskQueue,
    workflowId,
    args: [resolved({ agent: 'support', workspace, stream: true, session: { idleTimeoutSeconds: 600 } })],
  });
  const env = { AGENT_TASK_QUEUE: taskQueue };
  const before = requestsOf('support').length;

  const stopped = await runCli(['send', workflowId, 'what is my password?'], env);
  expect(stopped.code).toBe(5);
  expect(stopped.stderr).toContain(
    '(turn ended with status guardrail_tripped (guardrail "no-passwords": I cannot help with passwords: reset yours at /account.))',
  );
  expect(stopped.stdout).toBe('\n');
  expect(requestsOf('support')).toHaveLength(before);

  const withheld = await runCli(['send', workflowId, 'what is my api key?', '--json'], env);
  expect(withheld.code).toBe(5);
  expect(lastJsonLine(withheld.stdout)).toMatchObject({
    workflowId,
    status: 'guardrail_tripped',
    answer: '',
    guardrail: { name: 'no-secrets', reason: 'the answer held a credential' },
  });
  expect(withheld.stdout + withheld.stderr).not.toContain('SECRET');

  const answered = await runCli(['send', workflowId, 'thanks', '--json'], env);
  expect(answered.code).toBe(0);
  expect(lastJsonLine(answered.stdout)).toMatchObject({ status: 'completed', answer: 'Happy to help.' });
  // Both stopped turns were rolled back: the model is shown neither the password question nor the withheld answer.
  const shown = requestsOf('support')
    .at(-1)!
    .messages.filter((message) => message.role !== 'system');
  expect(shown.map((message) => message.content)).toEqual(['thanks']);

  const handle = environment.client.workflow.getHandle(workflowId);
  await handle.signal(endSessionSignal);
  expect(await handle.result()).toMatchObject({ status: 'ended', turns: 3, answer: 'Happy to help.' });
});

it('the web chat shows the reason, and none of an answer a guardrail stopped, after it or beside it', async () => {
  const stopped = async (api: string, text: string, unseen: string, guardrail: { name: string; reason: string }) => {
    const { chunks, invalid, message } = await chat(api, 'alice', newChatId(), [userMessage(text)]);
    expect(invalid).toEqual([]);
    expect(JSON.stringify(chunks)).not.toContain(unseen);
    expect(textOf(message)).toBe('');
    expect(message.parts).toContainEqual(expect.objectContaining({ type: 'data-guardrail', data: guardrail }));
    expect(chunks.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: 'content-filter',
      messageMetadata: { status: 'guardrail_tripped', guardrail },
    });
  };
  await stopped(served.api, 'what is my api key?', 'SECRET', { name: 'no-secrets', reason: 'the answer held a credential' });
  const reason = 'refunds are handled by a person';
  await stopped(servedSales.api, 'I want a refund', 'Refund issued', { name: 'no-refunds', reason });
  // The guardrail ran beside the model call: the model did answer, and its answer was dropped.
  expect(requestsOf('sales')).toHaveLength(1);
  // Where it passes, the agent's text streams as usual.
  const sold = await chat(servedSales.api, 'alice', newChatId(), [userMessage('one of each, please')]);
  expect(textOf(sold.message)).toBe('Sold.');
});

it('a model guardrail judges in a child run; a guardrail that throws fails closed with the reason', async () => {
  const [offTopic, onTopic, broken] = await Promise.all([
    runAgent(environment, taskQueue, { agent: 'coder', prompt: 'what is the weather like?', workspace }),
    runAgent(environment, taskQueue, { agent: 'coder', prompt: 'fix the failing test', workspace }),
    runAgent(environment, taskQueue, { agent: 'fragile', prompt: 'hello', workspace }),
  ]);
  expect(offTopic.result).toMatchObject({
    status: 'guardrail_tripped',
    answer: '',
    guardrail: { name: 'on-topic', reason: 'not about code' },
    // The judge's tokens count for the run that asked it.
    usage: { inputTokens: 10, outputTokens: 5 },
  });
  expect(onTopic.result).toMatchObject({ status: 'completed', answer: 'Done.', usage: { inputTokens: 20, outputTokens: 10 } });
  // The coder was asked once: for the request the judge let through.
  expect(requestsOf('coder').map(lastUser)).toEqual(['fix the failing test']);
  expect(broken.result.status).toBe('guardrail_tripped');
  expect(broken.result.guardrail).toEqual({
    name: 'policy-service',
    reason: 'guardrail "policy-service" failed, so it counts as tripped: policy service unreachable',
  });
  expect(requestsOf('fragile')).toHaveLength(0);
});

it('agent steer: a steering message is checked too, by a model guardrail, before the next model call', async () => {
  const workflowId = `steered-${Date.now()}`;
  await environment.client.workflow.start<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
    taskQueue,
    workflowId,
    args: [resolved({ agent: 'coder', workspace, session: { idleTimeoutSeconds: 600 } })],
  });
  const env = { AGENT_TASK_QUEUE: taskQueue };
  const coderCalls = requestsOf('coder').length;
  const sent = runCli(['send', workflowId, 'tidy the imports', '--json'], env);
  await waitFor('the turn to call the model', () => requestsOf('coder').length > coderCalls);
  const steered = runCli(['steer', workflowId, 'and what is the weather like?', '--json'], env);
  await waitFor(
    'the steering message accepted',
    async () => (await environment.client.workflow.getHandle(workflowId).query(statusQuery)).queuedMessages === 1,
  );
  releaseReply();
  const [sendReply, steerReply] = await Promise.all([sent, steered]);
  for (const reply of [sendReply, steerReply]) {
    expect(reply.code).toBe(5);
    expect(lastJsonLine(reply.stdout)).toMatchObject({
      status: 'guardrail_tripped',
      guardrail: { name: 'on-topic', reason: 'not about code' },
    });
  }
  // The turn's one model call was its first: the call after the tool round, with the steering message, was never made.
  expect(requestsOf('coder')).toHaveLength(coderCalls + 1);
  const handle = environment.client.workflow.getHandle(workflowId);
  await handle.signal(endSessionSignal);
  expect(await handle.result()).toMatchObject({ status: 'ended', turns: 1 });
});

it('a tool-call guardrail refuses the call it trips on, and the model reads why; one with onTrip end_turn ends the turn', async () => {
  const place = await makeWorkspace({ '.env': 'KEY=secret' });
  const refused = await runAgent(environment, taskQueue, { agent: 'writer', prompt: 'write the files', workspace: place });
  expect(refused.result).toMatchObject({ status: 'completed', answer: 'Wrote what I could.' });
  // The guardrail saw each call as it would run: the tool, its arguments, and the text a model guardrail reads.
  expect(checkedCalls).toEqual(
    expect.arrayContaining([
      {
        text: 'write_file {"content":"rm -rf ~","path":"run.sh"}',
        toolCall: { name: 'write_file', arguments: { path: 'run.sh', content: 'rm -rf ~' } },
      },
    ]),
  );
  const second = requestsOf('writer')[1];
  expect(
    second.messages.filter((message) => message.role === 'tool').map((message) => [message.toolCallId, message.content]),
  ).toEqual([
    ['sh1', 'Error: not run: refused by the guardrail "no-shell-scripts": shell scripts are written by people'],
    ['md1', 'wrote 5 bytes to notes.md'],
  ]);
  expect(await fileExists(path.join(place, 'run.sh'))).toBe(false);
  expect(await readFile(path.join(place, 'notes.md'), 'utf8')).toBe('notes');

  const writerCalls = requestsOf('writer').length;
  const ended = await runAgent(environment, taskQueue, { agent: 'writer', prompt: 'show me the env', workspace: place });
  expect(ended.result).toMatchObject({
    status: 'guardrail_tripped',
    answer: '',
    guardrail: { name: 'env-stops-the-turn', reason: 'this agent does not go near credentials' },
  });
  // The turn ended at the round: the model was not called again with the refused call's result.
  expect(requestsOf('writer')).toHaveLength(writerCalls + 1);
  const tail = await environment.client.workflow.getHandle(ended.workflowId).query(streamTailQuery, 0);
  expect(tail.events.map(({ event }) => event)).toContainEqual(
    expect.objectContaining({ type: 'tool_result', id: 'env1', isError: true, guardrail: 'env-stops-the-turn' }),
  );
});

it('a tool-call guardrail refuses a call before a person is asked about it', async () => {
  const place = await makeWorkspace();
  const { result, workflowId } = await runAgent(environment, taskQueue, {
    agent: 'careful-writer',
    prompt: 'write the deploy script',
    workspace: place,
  });
  expect(result).toMatchObject({ status: 'completed', answer: 'Not written.' });
  const tail = await environment.client.workflow.getHandle(workflowId).query(streamTailQuery, 0);
  const events = tail.events.map(({ event }) => event as { type: string; id?: string });
  expect(events.filter((event) => event.type.startsWith('approval_'))).toEqual([]);
  expect(events).toContainEqual(expect.objectContaining({ type: 'tool_result', id: 'sh2', guardrail: 'no-shell-scripts' }));
  expect(await fileExists(path.join(place, 'deploy.sh'))).toBe(false);
});

it("a person's edit is checked by the tool-call guardrails again before it runs", async () => {
  const place = await makeWorkspace();
  const workflowId = `edited-${Date.now()}`;
  const handle = await environment.client.workflow.start<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
    taskQueue,
    workflowId,
    args: [resolved({ agent: 'careful-writer', prompt: 'write the notes', workspace: place })],
  });
  await waitFor('the write to wait for a person', async () => (await handle.query(statusQuery)).pendingApprovals.length === 1);
  await handle.executeUpdate(approveUpdate, { args: [{ call: 'n1', arguments: '{"path":"evil.sh","content":"x"}' }] });
  expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'Not written.' });
  const results = requestsOf('careful-writer')
    .at(-1)!
    .messages.filter((message) => message.role === 'tool');
  expect(results.map((message) => [message.toolCallId, message.content])).toEqual([
    ['n1', 'Error: not run: refused by the guardrail "no-shell-scripts": shell scripts are written by people'],
  ]);
  expect(await fileExists(path.join(place, 'evil.sh'))).toBe(false);
});

it('a model tool-call guardrail judges each call in a child run, reading the call as its task', async () => {
  const place = await makeWorkspace();
  const { result, workflowId } = await runAgent(environment, taskQueue, {
    agent: 'judged-writer',
    prompt: 'write',
    workspace: place,
  });
  expect(result).toMatchObject({ status: 'completed', answer: 'Judged.' });
  const results = requestsOf('judged-writer')[1].messages.filter((message) => message.role === 'tool');
  expect(results.map((message) => [message.toolCallId, message.content])).toEqual([
    ['j1', 'Error: not run: refused by the guardrail "judged-calls": not about code'],
    ['j2', 'wrote 4 bytes to code.md'],
  ]);
  const judged = await environment.client.workflow.getHandle(`${workflowId}/guardrail-judged-calls-t1.i1.tool_call.j1`).result();
  expect(judged).toMatchObject({ status: 'completed', output: { tripped: true } });
  expect(requestsOf('topic-judge').map(lastUser)).toEqual(
    expect.arrayContaining(['write_file {"content":"sunny","path":"weather.md"}']),
  );
  expect(await fileExists(path.join(place, 'weather.md'))).toBe(false);
});
