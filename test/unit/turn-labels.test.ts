import { resolveAgentInput } from '../../core/resolve-input';
import type { AgentStatusSnapshot } from '../../core/result';
import { zeroUsage } from '../../core/usage';
import { describeStatus } from '../../workflows/run-status';
import { modelCallSummary } from '../../workflows/summaries';

// docs/how-it-works.md: a turn is one user message and its answer, an iteration one model call within a turn. The Web UI's labels
// and current details count that way (test/e2e/activity-summaries.test.ts reads them from the server).

const model = 'openai:gpt-4o-mini';

function inputOf(session: boolean) {
  const check = resolveAgentInput({ model, workspace: '/tmp', ...(session ? { session: {} } : { prompt: 'hi' }) });
  if (!check.ok) throw new Error(check.problems);
  return check.input;
}

function status(overrides: Partial<AgentStatusSnapshot>): AgentStatusSnapshot {
  return {
    phase: 'calling_model',
    agent: 'default',
    iteration: 5,
    turn: 3,
    turnIteration: 1,
    maxIterations: 20,
    toolCallsInFlight: [],
    usage: zeroUsage,
    turnUsage: zeroUsage,
    turns: 2,
    queuedMessages: 0,
    pendingApprovals: [],
    ...overrides,
  };
}

it('labels a model call by its iteration within the turn, naming the turn in a session', () => {
  const agent = { name: 'default', model };
  expect(modelCallSummary(agent, { iteration: 2 })).toBe(`${model} iteration 2`);
  expect(modelCallSummary(agent, { iteration: 1, turn: 3 })).toBe(`${model} turn 3 · iteration 1`);
  expect(
    modelCallSummary({ ...agent, name: 'researcher', modelSettings: { reasoningEffort: 'high' } }, { iteration: 1, turn: 2 }),
  ).toBe(`researcher · ${model} turn 2 · iteration 1 · effort high`);
});

it("shows the turn's own iteration against the limit, not the session's count", () => {
  const details = describeStatus(inputOf(true), status({}), model);
  expect(details.split('\n')[0]).toBe(`**calling model** · turn 3 · iteration 1 of 20 · model \`${model}\``);
  expect(describeStatus(inputOf(false), status({ turn: 1, turnIteration: 2 }), model).split('\n')[0]).toBe(
    `**calling model** · iteration 2 of 20 · model \`${model}\``,
  );
});

it('tells the calls since a handoff apart, since the limit bounds those', () => {
  const details = describeStatus(inputOf(true), status({ turnIteration: 7, agentIteration: 2, agent: 'writer' }), model);
  expect(details.split('\n')[0]).toBe(
    `**calling model** · turn 3 · iteration 7 · 2 of 20 since the handoff · agent \`writer\` · model \`${model}\``,
  );
});

it('shows no iteration before the first turn', () => {
  const details = describeStatus(inputOf(true), status({ phase: 'waiting_for_message', turn: 0, turnIteration: 0 }), model);
  expect(details.split('\n')[0]).toBe(`**waiting for message** · model \`${model}\``);
});
