import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { defineAgent } from '../../agents/define-agent';
import type { Message } from '../../core/messages';
import type { EvalCase } from '../../core/eval-types';
import { createAgentTestEnv, runEval, scriptedModel, type AgentTestEnv } from '../../testing';

// runEval over the scripted model (durable-agent/testing): a prompt unit-tested with no API. Two candidates answer
// the same cases; the test reads what each candidate's model call was shown and the report's figures.

const support = defineAgent({
  name: 'support',
  description: 'Answers customers.',
  instructions: 'You answer customers.',
  model: 'openai:gpt-4o-mini',
  tools: ['read_file'],
});
const model = scriptedModel();
let env: AgentTestEnv;

beforeAll(async () => {
  env = await createAgentTestEnv({
    agents: [support],
    model,
    server: { address: process.env.TEST_TEMPORAL_ADDRESS! },
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
  });
  await writeFile(path.join(env.workspace, 'policy.txt'), 'Refunds within 30 days.');
});
afterAll(() => env?.shutdown());

function lastUserText(messages: Message[]): string {
  return String([...messages].reverse().find((message) => message.role === 'user')?.content);
}

function datasetCase(id: string, prompt: string, line: number): EvalCase {
  return {
    id,
    source: { kind: 'dataset', file: 'cases.jsonl', line },
    context: [
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi, how can I help?', toolCalls: [] },
    ],
    prompt,
    toolFixtures: [],
  };
}

it('answers every case with each candidate once, each shown its instructions and the case context', async () => {
  model.reset((request) => {
    const instructions = request.messages[0].content;
    const question = lastUserText(request.messages);
    // The polite candidate reads the policy first; its second call answers from the result.
    if (instructions === 'Be polite.' && request.messages.at(-1)?.role === 'user')
      return { toolCalls: [{ name: 'read_file', arguments: { path: 'policy.txt' } }] };
    return instructions === 'Be polite.' ? `Dear customer: ${question}` : question.toUpperCase();
  });
  const cases = [datasetCase('refund', 'can I get a refund?', 1), datasetCase('hours', 'when are you open?', 2)];
  const report = await env.runEval({
    evalId: `eval-kit-${Date.now()}`,
    cases,
    candidates: [
      { name: 'terse', instructions: 'Be terse.' },
      { name: 'polite', instructions: 'Be polite.' },
    ],
    // The default: an unrecorded read runs on a scratch copy of the env's workspace.
    concurrency: 2,
  });

  // One model call per case for terse, two for polite (the tool call, then the answer): none repeated.
  const calls = model.requests.map((request) => ({
    instructions: request.messages[0].content,
    question: lastUserText(request.messages),
    context: request.messages.slice(1, 3),
  }));
  expect(
    calls
      .filter((call) => call.instructions === 'Be terse.')
      .map((call) => call.question)
      .sort(),
  ).toEqual(['can I get a refund?', 'when are you open?']);
  expect(calls.filter((call) => call.instructions === 'Be polite.')).toHaveLength(4);
  for (const call of calls) expect(call.context).toEqual(cases[0].context);

  expect(report.candidates).toEqual(['terse', 'polite']);
  expect(report.cases.map((entry) => entry.case.id)).toEqual(['refund', 'hours']);
  const refund = report.cases[0].outcomes;
  expect(refund.map((outcome) => [outcome.candidate, outcome.answer, outcome.workflowId])).toEqual([
    ['terse', 'CAN I GET A REFUND?', `${report.evalId}/refund/terse`],
    ['polite', 'Dear customer: can I get a refund?', `${report.evalId}/refund/polite`],
  ]);
  // The tool calls come from the child's result, with their results.
  expect(refund[1].toolCalls).toEqual([
    {
      name: 'read_file',
      arguments: { path: 'policy.txt' },
      result: expect.stringContaining('Refunds within 30 days.'),
      isError: false,
    },
  ]);
  expect(refund[0].toolCalls).toEqual([]);
  expect(report.summary).toEqual([
    { candidate: 'terse', score: 1, passed: 2, failed: 0, costUsd: 0, worse: 0 },
    { candidate: 'polite', score: 1, passed: 2, failed: 0, costUsd: 0, worse: 0 },
  ]);
  expect(report.stopped).toBeUndefined();
});

it('continues a long eval as new, carrying the scored pairs, and reports them all', async () => {
  model.reset((request) => `answer to ${lastUserText(request.messages)}`);
  const evalId = `eval-kit-chain-${Date.now()}`;
  const cases = Array.from({ length: 5 }, (_, index) => datasetCase(`case-${index + 1}`, `question ${index + 1}`, index + 1));
  // The function form of env.runEval, as durable-agent/testing exports it.
  const report = await runEval(env, {
    evalId,
    cases,
    candidates: [{ name: 'terse', instructions: 'Be terse.' }],
    graders: [{ type: 'contains', value: 'answer' }],
    pairsPerRun: 2,
    concurrency: 1,
  });
  expect(report.cases.map((entry) => [entry.case.id, entry.outcomes[0].answer, entry.outcomes[0].pass])).toEqual(
    cases.map((evalCase) => [evalCase.id, `answer to ${evalCase.prompt}`, true]),
  );
  expect(model.requests).toHaveLength(5);
  // Three runs: two pairs, two pairs, one; each run's history holds only its own pairs.
  const runs: number[] = [];
  for await (const execution of env.client.workflow.list({ query: `WorkflowId = '${evalId}'` }))
    runs.push(execution.historyLength ?? 0);
  expect(runs).toHaveLength(3);
  if (process.env.EVAL_HISTORY) process.stderr.write(`events per run of 2, 2 and 1 pairs: ${runs.join(', ')}\n`);
});
