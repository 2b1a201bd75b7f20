import { isCancellation } from '@temporalio/workflow';
import { addUsage, type ModelResponse, type ToolResultMessage } from '../core/messages';
import { summaryCutIndex } from '../core/context-view';
import type { ResolvedAgentInput } from '../core/input';
import type { TurnReply, TurnStatus } from '../core/result';
import { notRunResults } from '../core/tool-pairing';
import type { ModelTurn, RunSetup } from '../activities';
import type { ToolChoice } from '../providers/provider-call';
import { callModel } from './model-call';
import { nextStep, type NextStep } from './next-step';
import { runToolCalls } from './run-tool-calls';
import type { AgentState, TurnInProgress } from './state';
import { modelCallSummary } from './summaries';

export const reflectionPrompt =
  'You have reached the limit on tool-using steps for this task. Without calling any tools, summarise what you have done, ' +
  'what you found, and what remains to be done.';

export const emptyReplyPrompt = 'Your last reply was empty. Answer the task, or call a tool if you need one.';

export interface TurnContext {
  input: ResolvedAgentInput;
  state: AgentState;
  setup: RunSetup;
  showDetails(): void;
  /** Continues as new when it is due, handing this turn to the next run; returns only when it is not due. */
  maybeContinueAsNew(turn: TurnInProgress): Promise<void>;
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
 * Answers the latest user message: call the model; if it asks for tools, run
 * them all concurrently and append their results in the order asked; repeat
 * until the model answers without tools or a limit ends the turn. Every tool
 * call a reply carries gets exactly one result on every path, so the
 * conversation is always one both provider APIs accept.
 */
export async function runTurn(context: TurnContext, start: TurnInProgress): Promise<TurnReply> {
  const { input, state } = context;
  const status = state.status;
  status.turnUsage = start.usage;
  let turnIteration = start.iteration;
  let previousWasEmpty = false;

  const modelTurn = async (toolChoice: ToolChoice): Promise<ModelResponse> => {
    status.phase = 'calling_model';
    context.showDetails();
    const response = await callModel(input, state, { label: modelCallSummary(input.model, status.iteration), tools: input.tools, toolChoice });
    record(state, response);
    return response;
  };
  const finish = (answer: string, outcome: TurnStatus): TurnReply => {
    state.lastAnswer = answer;
    return { answer, status: outcome, iterations: turnIteration, usage: status.turnUsage };
  };

  while (turnIteration < input.maxIterations) {
    await context.maybeContinueAsNew({ iteration: turnIteration, usage: status.turnUsage, checkpoint: start.checkpoint });
    turnIteration++;
    status.iteration++;
    const response = await modelTurn('auto');
    const step: TurnStep = overBudget(input, state) ? { kind: 'token_budget' } : nextStep(response);
    if (step.kind !== 'run_tools') state.messages.push(...notRunResults(response.message.toolCalls, notRunBecause[step.kind]));
    const emptyTwice = previousWasEmpty && step.kind === 'empty';
    previousWasEmpty = step.kind === 'empty';
    switch (step.kind) {
      case 'final_answer':
        return finish(response.message.content, 'completed');
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
      case 'run_tools':
        await runTools(context, response, status.iteration);
        await summariseIfOverContext(context, response);
        break;
      default: {
        const exhaustive: never = step;
        throw new Error(`unknown step ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  // The limit was reached while the model still wanted tools: one last call that may not use them summarises the turn.
  state.messages.push({ role: 'user', content: reflectionPrompt });
  const reflection = await modelTurn('none');
  state.messages.push(...notRunResults(reflection.message.toolCalls, 'the iteration limit was reached'));
  return finish(reflection.message.content, 'max_iterations');
}

function record(state: AgentState, response: ModelTurn): void {
  const status = state.status;
  status.usage = addUsage(status.usage, response.usage);
  status.turnUsage = addUsage(status.turnUsage, response.usage);
  state.messages.push(response.message);
  // The stored transcript now covers every message including this response; without one, the next call goes inline.
  state.transcript = response.transcript ?? { length: 0 };
  state.progress.push({
    kind: 'model_turn',
    turn: status.iteration,
    toolCalls: response.message.toolCalls.map((call) => call.name),
    usage: response.usage,
  });
}

function overBudget(input: ResolvedAgentInput, state: AgentState): boolean {
  const { usage } = state.status;
  return input.maxSessionTokens !== undefined && usage.inputTokens + usage.outputTokens > input.maxSessionTokens;
}

/**
 * Runs the reply's tool calls and appends their results in the order asked. If
 * the run is cancelled meanwhile, the calls that finished keep their results
 * and the others get "not run" results before the cancellation goes on, so even
 * a cancelled run's conversation can be continued or forked.
 */
async function runTools(context: TurnContext, response: ModelResponse, iteration: number): Promise<void> {
  const { input, state } = context;
  const status = state.status;
  const calls = response.message.toolCalls;
  const finished = new Map<string, ToolResultMessage>();
  status.phase = 'running_tools';
  context.showDetails();
  try {
    const results = await runToolCalls(calls, {
      workspace: input.workspace,
      tools: context.setup.tools,
      maxConcurrent: input.maxConcurrentTools,
      onStart: (summary) => {
        status.toolCallsInFlight = [...status.toolCallsInFlight, summary];
        context.showDetails();
      },
      onFinish: (summary, result) => {
        finished.set(result.toolCallId, result);
        const index = status.toolCallsInFlight.indexOf(summary);
        if (index >= 0) status.toolCallsInFlight = status.toolCallsInFlight.filter((_, position) => position !== index);
        state.progress.push({ kind: 'tool_done', turn: iteration, summary, isError: result.isError });
        context.showDetails();
      },
    });
    state.messages.push(...results);
  } catch (error) {
    if (!isCancellation(error)) throw error;
    for (const call of calls) state.messages.push(finished.get(call.id) ?? notRunResults([call], 'the run was cancelled')[0]);
    status.toolCallsInFlight = [];
    throw error;
  }
}

/**
 * When the model's input has grown past the context budget, older turns are
 * summarised by a model call (an ordinary retried activity) and the summary
 * stands in for them from the next call on. The conversation itself is kept whole.
 */
async function summariseIfOverContext(context: TurnContext, response: ModelResponse): Promise<void> {
  const { input, state } = context;
  const budget = input.context.maxContextTokens;
  if (budget === undefined || response.usage.inputTokens <= budget) return;
  const upTo = summaryCutIndex(state.messages, input.context.keepRecentTurns);
  if (upTo === undefined || upTo <= (state.summary?.upTo ?? 0)) return;
  state.status.phase = 'summarising';
  context.showDetails();
  const summary = await callModel(input, state, { label: `${input.model} summary`, tools: input.tools, toolChoice: 'none', summarizeUpTo: upTo });
  state.status.usage = addUsage(state.status.usage, summary.usage);
  state.status.turnUsage = addUsage(state.status.turnUsage, summary.usage);
  state.summary = { content: summary.message.content, upTo };
}
