import { addUsage, zeroUsage, type ModelResponse } from '../agent/messages';
import { summaryCutIndex } from '../agent/context-view';
import type { ValidAgentInput } from '../agent/input';
import type { TurnReply, TurnStatus } from '../agent/result';
import type { ModelTurn, RunSetup } from '../activities';
import { callModel } from './model-call';
import { nextStep } from './next-step';
import { runToolCalls } from './run-tool-calls';
import type { AgentState } from './state';
import { modelCallSummary } from './summaries';

export const reflectionPrompt =
  'You have reached the limit on tool-using steps for this task. Without calling any tools, summarise what you have done, ' +
  'what you found, and what remains to be done.';

export const emptyReplyPrompt = 'Your last reply was empty. Answer the task, or call a tool if you need one.';

export interface TurnContext {
  input: ValidAgentInput;
  state: AgentState;
  setup: RunSetup;
  showDetails(): void;
  /** Continues as new when it is due and safe; `turnIteration` is where this turn stands. */
  maybeContinueAsNew(turnIteration?: number): Promise<void>;
}

/**
 * Answers the latest user message: call the model; if it asks for tools, run
 * them all concurrently and append their results in the order asked; repeat
 * until the model answers without tools or a limit ends the turn.
 */
export async function runTurn(context: TurnContext, startIteration = 0): Promise<TurnReply> {
  const { input, state } = context;
  const status = state.status;
  status.turnUsage = zeroUsage;
  let turnIteration = startIteration;
  let previousWasEmpty = false;

  const modelTurn = async (tools: string[]): Promise<ModelResponse> => {
    status.phase = 'calling_model';
    context.showDetails();
    const response = await callModel(input, state, { label: modelCallSummary(input.model, status.iteration), tools });
    record(state, response);
    return response;
  };
  const finish = (answer: string, outcome: TurnStatus): TurnReply => {
    state.lastAnswer = answer;
    return { answer, status: outcome, iterations: turnIteration, usage: status.turnUsage };
  };

  while (turnIteration < input.maxIterations) {
    await context.maybeContinueAsNew(turnIteration);
    turnIteration++;
    status.iteration++;
    const response = await modelTurn(input.tools);
    if (overBudget(input, state)) return finish(response.message.content, 'token_budget');
    const step = nextStep(response);
    const emptyTwice = previousWasEmpty && step.kind === 'empty';
    previousWasEmpty = step.kind === 'empty';
    switch (step.kind) {
      case 'final_answer':
        return finish(response.message.content, 'completed');
      case 'truncated':
        return finish(response.message.content, 'truncated');
      case 'refused':
        return finish(response.message.content, 'refused');
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

  // The limit was reached while the model still wanted tools: one last call without tools summarises the turn.
  state.messages.push({ role: 'user', content: reflectionPrompt });
  const reflection = await modelTurn([]);
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

function overBudget(input: ValidAgentInput, state: AgentState): boolean {
  const { usage } = state.status;
  return input.maxSessionTokens !== undefined && usage.inputTokens + usage.outputTokens > input.maxSessionTokens;
}

async function runTools(context: TurnContext, response: ModelResponse, iteration: number): Promise<void> {
  const { input, state } = context;
  const status = state.status;
  status.phase = 'running_tools';
  context.showDetails();
  const results = await runToolCalls(response.message.toolCalls, {
    workspace: input.workspace,
    tools: context.setup.tools,
    maxConcurrent: input.maxConcurrentTools,
    onStart: (summary) => {
      status.toolCallsInFlight = [...status.toolCallsInFlight, summary];
      context.showDetails();
    },
    onFinish: (summary, result) => {
      const index = status.toolCallsInFlight.indexOf(summary);
      if (index >= 0) status.toolCallsInFlight = status.toolCallsInFlight.filter((_, position) => position !== index);
      state.progress.push({ kind: 'tool_done', turn: iteration, summary, isError: result.isError });
      context.showDetails();
    },
  });
  state.messages.push(...results);
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
  const summary = await callModel(input, state, { label: `${input.model} summary`, tools: [], summarizeUpTo: upTo });
  state.status.usage = addUsage(state.status.usage, summary.usage);
  state.status.turnUsage = addUsage(state.status.turnUsage, summary.usage);
  state.summary = { content: summary.message.content, upTo };
}
