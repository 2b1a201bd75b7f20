import type { AgentSpec } from '../core/agent-spec';
import { offeredToolNames } from '../core/tool-names';
import { summaryCutIndex } from '../core/context-view';
import type { ResolvedAgentInput } from '../core/input';
import { addUsage } from '../core/usage';
import { costBudgetOf, spendCheck, withBoundedOutput } from './cost-budget';
import type { TurnReply, TurnStatus } from '../core/result';
import { notRunResults } from '../core/tool-pairing';
import type { ModelCallResult, RunSetup } from '../activities';
import type { ToolChoice } from '../providers/provider-call';
import { callModel } from './model-call';
import { nextStep, type NextStep } from './next-step';
import { runToolRound } from './tool-round';
import type { AgentState, TurnInProgress } from './state';
import type { Approvals } from './approvals';
import type { AgentStream } from './agent-stream';
import { modelCallSummary } from './summaries';

export const reflectionPrompt =
  'You have reached the limit on tool-using steps for this task. Without calling any tools, summarise what you have done, ' +
  'what you found, and what remains to be done.';

export const emptyReplyPrompt = 'Your last reply was empty. Answer the task, or call a tool if you need one.';

export function invalidOutputPrompt(problem: string): string {
  return `Your final answer does not match the required output format: ${problem}\nAnswer again, with only the JSON it asks for.`;
}

// A final answer that does not match the agent's outputSchema is sent back this many times before the turn gives up.
export const maxOutputRetries = 2;

export interface TurnContext {
  input: ResolvedAgentInput;
  state: AgentState;
  setup: RunSetup;
  approvals: Approvals;
  /** The run's stream: each model reply and tool call is published to it. */
  stream: AgentStream;
  /** Why calls cut short by a cancellation were not run: the turn was interrupted, or the whole run cancelled. */
  cancelledBecause(): string;
  showDetails(): void;
  /** Whether the run should continue as new at the next point it can. */
  continueAsNewDue(): boolean;
  /** Continues as new now, handing this turn to the next run. */
  continueAsNew(turn: TurnInProgress): Promise<never>;
}

/** A model call on its way: the stream's id for it, the agent and model asked, the turn's iteration, and the reply to come. */
interface AskedModel {
  call: string;
  agent: string;
  model: string;
  iteration: number;
  reply: Promise<ModelCallResult>;
}

/** What the loop does after a model reply: the reply's own next step, or the end of the token budget. */
type TurnStep = NextStep | { kind: 'token_budget' };

/** Why the tool calls of a reply were not run, in the error result each of them gets. */
const notRunBecause: Record<Exclude<TurnStep['kind'], 'run_tools'>, string> = {
  final_answer: 'the reply was final',
  empty: 'the reply was empty',
  truncated: 'the reply was cut at the output-token limit, so its arguments may be incomplete',
  refused: 'the reply was refused',
  token_budget: 'the token budget of this run is spent',
};

/**
 * Answers the latest user message: call the model of the agent that has the
 * conversation; if it asks for tools, run them all concurrently (subagents as
 * child workflows) and append their results in the order asked; a handoff gives
 * the conversation to another agent, whose instructions, model, tools and limit
 * apply from the next call. Repeat until the model answers without tools or a
 * limit ends the turn. Every tool call a reply carries gets exactly one result
 * on every path, so the conversation is always one both provider APIs accept.
 */
export async function runTurn(context: TurnContext, start: TurnInProgress): Promise<TurnReply> {
  const { input, state, setup } = context;
  const status = state.status;
  const agent = (): AgentSpec => setup.agents[state.agent];
  const maySpawn = (input.subagent?.depth ?? 0) < input.maxSubagentDepth;
  const turn = { ...start };
  status.turnUsage = start.usage;
  status.maxIterations = agent().maxIterations;
  let previousWasEmpty = false;

  const budget = costBudgetOf(input, setup);
  // Asking the model and taking its reply are two steps, so the loop awaits the activity itself: each promise a
  // workflow makes costs a stack trace in the SDK's promise hook, on every iteration and at every replay.
  const askModel = (toolChoice: ToolChoice): AskedModel => {
    status.phase = 'calling_model';
    context.showDetails();
    const current = agent();
    const call = context.stream.nextCallId();
    const reply = callModel(input, state, {
      label: modelCallSummary(current, status.iteration),
      agent: budget === undefined ? current : withBoundedOutput(current),
      tools: offeredToolNames(current, { subagents: maySpawn }),
      toolChoice,
      mcp: setup.mcpListing,
      // Only runs that asked for it get the text as it is written; every run gets each reply whole.
      ...(input.stream && { streamAs: call }),
    });
    // The reflection call after the limit is not an iteration of its own: it carries the last one's number.
    return { call, agent: current.name, model: current.model, iteration: Math.max(1, turn.iteration), reply };
  };
  const takeReply = (asked: AskedModel, response: ModelCallResult): ModelCallResult => {
    record(state, response);
    context.stream.publish({
      type: 'reply',
      call: asked.call,
      text: response.message.content,
      toolCalls: response.message.toolCalls.map((toolCall) => toolCall.name),
      iteration: asked.iteration,
      agent: asked.agent,
      model: asked.model,
      usage: response.usage,
      ...(response.message.thinking?.length && { thought: true as const }),
    });
    return response;
  };
  // Before each model call: would its worst case take the spend past the budget? Then the turn stops here.
  const budgetSpent = (): boolean => budget !== undefined && !spendCheck(state, setup.prices[agent().model], agent(), budget).affordable;
  const lastAnswerOfTurn = () => [...state.messages.slice(start.checkpoint.length)].reverse().find((message) => message.role === 'assistant')?.content ?? '';
  const finish = (answer: string, outcome: TurnStatus, output?: unknown): TurnReply => {
    state.lastAnswer = answer;
    state.lastOutput = output;
    turn.usage = status.turnUsage;
    return { answer, status: outcome, iterations: turn.iteration, usage: status.turnUsage, agent: state.agent, ...(output !== undefined && { output }) };
  };

  // After a tool round: a handoff passes the conversation on; a spent token budget ends the turn.
  const afterToolRound = (handoff: string | undefined, lastReply: string): TurnReply | undefined => {
    if (handoff) {
      context.stream.publish({ type: 'handoff', from: state.agent, to: handoff });
      state.agent = status.agent = handoff;
      status.maxIterations = agent().maxIterations;
      turn.handoffs++;
      turn.agentIterations = 0;
      turn.outputRetries = 0;
      previousWasEmpty = false;
    }
    // Subagents spend tokens too: once the budget is gone, the turn ends here, its tool calls all answered.
    if (overBudget(input, state)) return finish(lastReply, 'token_budget');
    return undefined;
  };

  // The previous run continued as new while a tool round waited for approval: that round goes on first.
  if (start.openRound) {
    const { openRound, ...rest } = start;
    const reply = state.messages[state.messages.length - 1];
    if (reply?.role !== 'assistant') throw new Error('a carried tool round must follow its reply');
    const round = {
      calls: reply.toolCalls,
      needsApproval: openRound.needsApproval,
      descriptions: openRound.descriptions,
      finished: openRound.finished,
      waiting: openRound.waiting,
    };
    Object.assign(turn, rest);
    delete turn.openRound;
    const ended = afterToolRound(await runToolRound(context, round, turn, { maySpawn, budget }), reply.content);
    if (ended) return ended;
    const upTo = summaryDue(context);
    if (upTo !== undefined) await summarise(context, upTo);
  }

  while (turn.agentIterations < agent().maxIterations) {
    if (context.continueAsNewDue()) await context.continueAsNew({ ...turn, usage: status.turnUsage });
    if (budgetSpent()) return finish(lastAnswerOfTurn(), 'cost_budget');
    turn.iteration++;
    turn.agentIterations++;
    status.iteration++;
    const asked = askModel('auto');
    const response = takeReply(asked, await asked.reply);
    const step: TurnStep = overBudget(input, state) ? { kind: 'token_budget' } : nextStep(response);
    if (step.kind !== 'run_tools') state.messages.push(...notRunResults(response.message.toolCalls, notRunBecause[step.kind]));
    const emptyTwice = previousWasEmpty && step.kind === 'empty';
    previousWasEmpty = step.kind === 'empty';
    switch (step.kind) {
      case 'final_answer':
        if (agent().outputSchema === undefined) return finish(response.message.content, 'completed');
        if (response.output !== undefined) return finish(response.message.content, 'completed', response.output);
        if (turn.outputRetries >= maxOutputRetries) return finish(response.message.content, 'invalid_output');
        turn.outputRetries++;
        state.messages.push({ role: 'user', content: invalidOutputPrompt(response.outputProblem ?? 'it could not be read') });
        break;
      case 'truncated':
        return finish(response.message.content, 'truncated');
      case 'refused':
        return finish(response.message.content, 'refused');
      case 'token_budget':
        return finish(response.message.content, 'token_budget');
      case 'empty':
        if (emptyTwice) return finish('', 'empty');
        state.messages.push({ role: 'user', content: emptyReplyPrompt });
        break;
      case 'run_tools': {
        const round = { calls: response.message.toolCalls, needsApproval: response.needsApproval ?? [], descriptions: response.approvalDescriptions };
        const ended = afterToolRound(await runToolRound(context, round, turn, { maySpawn, budget }), response.message.content);
        if (ended) return ended;
        // Then a context grown past its budget is summarised. Checked before calling, not inside an async
        // function: every promise costs a stack trace in the SDK's promise hook, at each replay too.
        const upTo = summaryDue(context);
        if (upTo !== undefined) await summarise(context, upTo);
        break;
      }
      default: {
        const exhaustive: never = step;
        throw new Error(`unknown step ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  // The limit was reached while the model still wanted tools: one last call that may not use them summarises the turn.
  if (budgetSpent()) return finish(lastAnswerOfTurn(), 'cost_budget');
  state.messages.push({ role: 'user', content: reflectionPrompt });
  const askedForReflection = askModel('none');
  const reflection = takeReply(askedForReflection, await askedForReflection.reply);
  state.messages.push(...notRunResults(reflection.message.toolCalls, 'the iteration limit was reached'));
  return finish(reflection.message.content, 'max_iterations');
}

function record(state: AgentState, response: ModelCallResult): void {
  const status = state.status;
  status.usage = addUsage(status.usage, response.usage);
  status.turnUsage = addUsage(status.turnUsage, response.usage);
  state.messages.push(response.message);
  state.lastCall = { inputTokens: response.usage.inputTokens, outputTokens: response.usage.outputTokens, length: state.messages.length };
  // The stored transcript now covers every message including this response; without one, the next call goes inline.
  state.transcript = response.transcript ?? { length: 0 };
}

function overBudget(input: ResolvedAgentInput, state: AgentState): boolean {
  const { usage } = state.status;
  return input.maxSessionTokens !== undefined && usage.inputTokens + usage.outputTokens > input.maxSessionTokens;
}

/**
 * When the model's input has grown past the context budget, older turns are
 * summarised by a model call (an ordinary retried activity) and the summary
 * stands in for them from the next call on. The conversation itself is kept whole.
 * Returns where the summary would end, when one is due.
 */
function summaryDue(context: TurnContext): number | undefined {
  const { input, state } = context;
  const inputTokens = state.lastCall?.inputTokens ?? 0;
  const budget = input.context.maxContextTokens;
  if (budget === undefined || inputTokens <= budget) return undefined;
  const upTo = summaryCutIndex(state.messages, input.context.keepRecentTurns);
  return upTo === undefined || upTo <= (state.summary?.upTo ?? 0) ? undefined : upTo;
}

async function summarise(context: TurnContext, upTo: number): Promise<void> {
  const { input, state, setup } = context;
  state.status.phase = 'summarising';
  context.showDetails();
  const agent = setup.agents[state.agent];
  const summary = await callModel(input, state, { label: `${agent.model} summary`, agent, tools: agent.tools, toolChoice: 'none', summarizeUpTo: upTo, mcp: setup.mcpListing });
  state.status.usage = addUsage(state.status.usage, summary.usage);
  state.status.turnUsage = addUsage(state.status.turnUsage, summary.usage);
  state.summary = { content: summary.message.content, upTo };
}
