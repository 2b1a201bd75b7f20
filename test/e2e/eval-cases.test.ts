import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from '@temporalio/worker';
import type { AgentResult } from '../../core/result';
import { toolPairingProblems } from '../../core/tool-pairing';
import { fetchHistoryChain, historyChainToJSON } from '../../client/history-chain';
import { sendMessage } from '../../client/send-message';
import { casesFromConversation, casesFromHistoryFiles, casesFromRuns } from '../../evals/cases';
import type { ResolvedAgentInput } from '../../core/input';
import { hostileRecording } from '../fixtures/hostile-recording';
import { agentWorkflowType, endSessionSignal } from '../../workflows/definitions';
import { openaiReply, providerReply } from '../support/fake-model-server';
import { createTestWorker, resolved, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// Cases from recorded runs on the dev server: a one-shot run (by id and by a visibility query), and a session that
// continued as new after every model call (every message, from the server and from its history file).

const bed = useTestBed();
jest.setTimeout(180_000);
afterEach(() => expect(bed.server.refusals).toEqual([]));

const model = 'openai:gpt-4o-mini';

async function withWorker<T>(body: (taskQueue: string, worker: Worker) => Promise<T>): Promise<T> {
  const taskQueue = uniqueTaskQueue('eval-cases');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  return worker.runUntil(() => body(taskQueue, worker));
}

/** One message's answer: read a file (a tool round), then say what it holds. */
function readThenAnswer(call: string, file: string, answer: string, inputTokens: number) {
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: call, name: 'read_file', arguments: { path: file } }], inputTokens }),
    openaiReply({ content: answer, inputTokens: inputTokens + 1 }),
  );
}

it('makes the case of a recorded one-shot run, by id and by a visibility query', async () => {
  await withWorker(async (taskQueue) => {
    const workspace = await makeWorkspace({ 'alpha.txt': 'alpha says hi' });
    readThenAnswer('read_1', 'alpha.txt', 'alpha.txt says hi', 100);
    const workflowId = `eval-case-one-shot-${randomUUID()}`;
    await bed.environment.client.workflow.execute<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
      taskQueue,
      workflowId,
      args: [resolved({ prompt: 'What does alpha.txt say?', model, tools: ['read_file'], workspace })],
    });
    const [byId, ...more] = await casesFromRuns(bed.environment.client, { workflowIds: [workflowId] });
    expect(more).toEqual([]);
    expect(byId).toMatchObject({
      id: `${workflowId}#1`,
      source: { kind: 'run', workflowId, messageIndex: 1 },
      context: [],
      prompt: 'What does alpha.txt say?',
      recorded: {
        answer: 'alpha.txt says hi',
        toolCalls: [{ name: 'read_file', arguments: { path: 'alpha.txt' }, result: 'alpha says hi', isError: false }],
        usage: { inputTokens: 201 },
        iterations: 2,
      },
      toolFixtures: [{ tool: 'read_file', arguments: '{"path":"alpha.txt"}', content: 'alpha says hi', isError: false }],
      // The tools the run was given: what a candidate that names none is offered.
      tools: ['read_file'],
    });
    // Visibility catches up on its own time: the query is asked until it lists the run.
    const byQuery = await waitFor('the run to be listed', async () => {
      const cases = await casesFromRuns(bed.environment.client, { query: `WorkflowId = '${workflowId}'` }).catch(() => []);
      return cases.length > 0 && cases;
    });
    expect(byQuery).toEqual([byId]);
  });
});

it('makes a case of every message of a session that continued as new, from the server and from its history file', async () => {
  await withWorker(async (taskQueue) => {
    const workspace = await makeWorkspace({ 'alpha.txt': 'alpha v1', 'beta.txt': 'beta v1' });
    const workflowId = `eval-case-session-${randomUUID()}`;
    const handle = await bed.environment.client.workflow.start<(input: unknown) => Promise<AgentResult>>(agentWorkflowType, {
      taskQueue,
      workflowId,
      args: [
        resolved({
          model,
          tools: ['read_file'],
          workspace,
          session: { idleTimeoutSeconds: 600 },
          continueAsNewAfterModelCalls: 1,
        }),
      ],
    });
    readThenAnswer('read_a', 'alpha.txt', 'alpha holds v1', 10);
    await sendMessage(handle, 'What does alpha.txt hold?');
    readThenAnswer('read_b', 'beta.txt', 'beta holds v1', 20);
    await sendMessage(handle, 'And beta.txt?');
    await handle.signal(endSessionSignal);
    await handle.result();
    const chain = await fetchHistoryChain(bed.environment.client, workflowId);
    expect(chain.length).toBeGreaterThanOrEqual(4);

    const cases = await casesFromRuns(bed.environment.client, { workflowIds: [workflowId], everyMessage: true });
    expect(cases.map((entry) => [entry.id, entry.prompt])).toEqual([
      [`${workflowId}#1`, 'What does alpha.txt hold?'],
      [`${workflowId}#5`, 'And beta.txt?'],
    ]);
    expect(cases[0]).toMatchObject({
      context: [],
      recorded: { answer: 'alpha holds v1', iterations: 2, usage: { inputTokens: 21 } },
    });
    const second = cases[1];
    expect(second.recorded).toMatchObject({
      answer: 'beta holds v1',
      iterations: 2,
      usage: { inputTokens: 41 },
      toolCalls: [{ name: 'read_file', arguments: { path: 'beta.txt' }, result: 'beta v1' }],
    });
    // The context is the first turn, paired; the fixtures hold this answer's call first, then the earlier one.
    expect(second.context.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(toolPairingProblems(second.context)).toEqual([]);
    expect(second.toolFixtures.map((fixture) => [fixture.arguments, fixture.content])).toEqual([
      ['{"path":"beta.txt"}', 'beta v1'],
      ['{"path":"alpha.txt"}', 'alpha v1'],
    ]);
    // By default, only the last message.
    expect(await casesFromRuns(bed.environment.client, { workflowIds: [workflowId] })).toEqual([second]);

    // The same cases from the chain file `agent history --out` writes.
    const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'eval-history-')), 'session.json');
    await writeFile(file, historyChainToJSON(workflowId, chain));
    expect(await casesFromHistoryFiles([file], { everyMessage: true })).toEqual(cases);
  });
});

it.each([
  ['anthropic', 'anthropic:claude-haiku-4-5'],
  ['openai', model],
] as const)(
  'runs a case of a hostile recording on %s: the provider accepts its context, the fixture answers',
  async (provider, candidate) => {
    const [hostile] = casesFromConversation(hostileRecording);
    await withWorker(async (taskQueue) => {
      const workspace = await makeWorkspace();
      const toolCalls = [
        { id: provider === 'anthropic' ? 'toolu_1' : 'call_1', name: 'read_file', arguments: { path: 'a.txt' } },
      ];
      bed.server.enqueue(
        providerReply(provider, { toolCalls }),
        providerReply(provider, { text: 'b.txt written before; a.txt holds alpha v2' }),
      );
      const input: ResolvedAgentInput = {
        ...resolved({
          model: candidate,
          tools: ['read_file', 'write_file'],
          workspace,
          messages: hostile.context,
          prompt: hostile.prompt,
        }),
        evalTools: { fixtures: hostile.toolFixtures, unrecorded: 'refuse' },
      };
      const result = await bed.environment.client.workflow.execute<(input: ResolvedAgentInput) => Promise<AgentResult>>(
        agentWorkflowType,
        { taskQueue, workflowId: `eval-case-hostile-${randomUUID()}`, args: [input] },
      );
      expect(result.status).toBe('completed');
      // Both requests were accepted (afterEach: no refusal), and the second carried the recorded result.
      expect(bed.server.requests).toHaveLength(2);
      expect(JSON.stringify(bed.server.requests[1].body)).toContain('alpha v2');
      expect(JSON.stringify(bed.server.requests[0].body)).not.toMatch(/forged|bad name!|answers nothing/);
    });
  },
);
