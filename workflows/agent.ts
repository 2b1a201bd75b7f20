import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { failureTypes } from '../agent/errors';
import { checkAgentInput, type AgentInput, type ValidAgentInput } from '../agent/input';
import { maxPromptChars } from '../agent/limits';
import type { AgentResult, AgentStatus, AgentStatusSnapshot, TurnReply } from '../agent/result';
import type { CoreActivities } from '../activities';
import { endSessionSignal, messagesQuery, progressQuery, sendMessageUpdate, statusQuery } from './definitions';
import { carry, describeStatus, initialState } from './state';
import { runFailure } from './model-call';
import { runTurn, type TurnContext } from './turn';

export { emptyReplyPrompt, reflectionPrompt } from './turn';

const { prepareRun } = proxyActivities<CoreActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 3 },
});

/**
 * The durable agent. A one-shot run answers its prompt and ends. A session
 * (`input.session`) then waits for more user messages, each a sendMessage update
 * answered in order, until `endSession` or its idle timeout. Long runs continue
 * as new, carrying the conversation, counters and settings.
 */
export async function agentWorkflow(rawInput: AgentInput): Promise<AgentResult> {
  const input = validInput(rawInput);
  const state = initialState(input);
  const status = state.status;
  const queue: Array<{ ticket: number; content: string }> = [];
  const replies = new Map<number, TurnReply>();
  let nextTicket = 0;
  let endRequested = false;

  setHandler(messagesQuery, (options) => state.messages.slice(options?.from ?? 0));
  const snapshot = (): AgentStatusSnapshot => ({ ...status, queuedMessages: queue.length });
  setHandler(statusQuery, snapshot);
  setHandler(progressQuery, (from) => state.progress.slice(Math.max(0, (from ?? 0) - state.progressOffset)));
  setHandler(endSessionSignal, () => {
    endRequested = true;
  });
  setHandler(
    sendMessageUpdate,
    async (content) => {
      const ticket = nextTicket++;
      queue.push({ ticket, content });
      await condition(() => replies.has(ticket));
      const reply = replies.get(ticket)!;
      replies.delete(ticket);
      return reply;
    },
    { validator: (content) => validateMessage(input, content, endRequested) },
  );
  const showDetails = () => setCurrentDetails(describeStatus(input, snapshot()));

  const continueAsNewDue = () =>
    workflowInfo().continueAsNewSuggested ||
    (input.continueAsNewAfterModelCalls !== undefined && state.modelCallsThisRun >= input.continueAsNewAfterModelCalls);
  // Only when no update is waiting for an answer from this run: its caller would lose the reply.
  const canContinueAsNew = () => continueAsNewDue() && queue.length === 0 && allHandlersFinished();
  const maybeContinueAsNew = async (turnIteration?: number) => {
    if (!canContinueAsNew()) return;
    const next: AgentInput = { ...input, prompt: undefined, messages: undefined, carried: carry(state, turnIteration) };
    await continueAsNew<typeof agentWorkflow>(next);
  };

  const setup = await prepareRun({ tools: input.tools, workspace: input.workspace }).catch((error: unknown) => {
    throw runFailure(error);
  });
  const context: TurnContext = { input, state, setup, showDetails, maybeContinueAsNew };
  const finish = async (outcome: AgentStatus): Promise<AgentResult> => {
    status.phase = 'finished';
    showDetails();
    await condition(allHandlersFinished);
    return { answer: state.lastAnswer, status: outcome, iterations: status.iteration, usage: status.usage, turns: status.turns };
  };

  const resumingTurn = input.carried?.turnIteration;
  if (resumingTurn !== undefined || (!input.carried && state.messages[state.messages.length - 1]?.role === 'user')) {
    const reply = await runTurn(context, resumingTurn ?? 0);
    status.turns++;
    if (!input.session || reply.status === 'token_budget') return finish(reply.status);
  }

  for (;;) {
    status.phase = 'waiting_for_message';
    showDetails();
    const woke = await condition(
      () => queue.length > 0 || endRequested || canContinueAsNew(),
      `${input.session!.idleTimeoutSeconds}s`,
    );
    if (!endRequested) await maybeContinueAsNew();
    if (queue.length === 0) return finish(woke ? 'ended' : 'idle_timeout');
    const next = queue.shift()!;
    state.messages.push({ role: 'user', content: next.content });
    const reply = await runTurn(context);
    status.turns++;
    replies.set(next.ticket, reply);
    if (reply.status === 'token_budget') {
      // The budget is spent: the messages still queued get that answer too, and the session ends.
      for (const waiting of queue.splice(0))
        replies.set(waiting.ticket, { ...reply, answer: '', iterations: 0, usage: { inputTokens: 0, outputTokens: 0 } });
      return finish('token_budget');
    }
  }
}

function validateMessage(input: ValidAgentInput, content: unknown, ending: boolean): void {
  if (!input.session) throw new Error('this run is not a session; start one with `agent chat` (input.session)');
  if (typeof content !== 'string' || !content.trim()) throw new Error('message must not be empty');
  if (content.length > maxPromptChars)
    throw new Error(`message is ${content.length} characters; at most ${maxPromptChars} are accepted`);
  if (ending) throw new Error('the session is ending and takes no more messages');
}

function validInput(rawInput: AgentInput): ValidAgentInput {
  const check = checkAgentInput(rawInput);
  if (!check.ok) {
    throw ApplicationFailure.create({
      type: failureTypes.invalidInput,
      message: `invalid agent input: ${check.problems}`,
      nonRetryable: true,
    });
  }
  return check.input;
}
