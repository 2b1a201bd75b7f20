import type { AttachmentPart } from '../core/attachments';
import type { AgentSpec } from '../core/agent-spec';
import { offeredToolNames } from '../core/tool-names';
import { summaryCutIndex } from '../core/context-view';
import type { ResolvedAgentInput } from '../core/input';
import type { TurnReply, TurnStatus } from '../core/result';
import { notRunResults } from '../core/tool-pairing';
import { readableThinking, steeringPreviewChars } from '../core/stream-events';
import type { ModelCallResult, RunSetup } from '../activities';
import type { ToolChoice } from '../providers/provider-call';
import { costBudgetOf, spendCheck, withBoundedOutput } from './cost-budget';
import { callModel } from './model-call';
import { nextStep, type NextStep } from './next-step';
import { runToolRound, type RoundOutcome, type RoundRequest } from './tool-round';
import type { AgentState, TurnProgress } from './state';
import type { Approvals } from './approvals';
import type { AgentStream } from './agent-stream';
import type { HandOverRule } from './hand-over-rule';
import type { RunStatus } from './run-status';
import type { TurnScope } from './turn-scope';
import type { WorkflowTools } from './workflow-tools';
import { modelCallSummary } from './summaries';
import { rollBack } from './state';
import { TurnGuardrails, type GuardedText } from './guardrails/turn-guardrails';
import type { GuardrailStage, TrippedGuardrail } from '../core/guardrails';
import type { GuardrailTiming } from './guardrails/run-guardrails';

export const reflectionPrompt =
  'You have reached the limit on tool-using steps for this task. Without calling any tools, summarise what you have done, ' +
  'what you found, and what remains to be done.';

export const emptyReplyPrompt = 'Your last reply was empty. Answer the task, or call a tool if you need one.';

export function invalidOutputPrompt(problem: string): string {
  return `Your final answer does not match the required output format: ${problem}\nAnswer again, with only the JSON it asks for.`;
}

// A final answer that does not match the agent's outputSchema is sent back this many times before the turn gives up.
export const maxOutputRetries = 2;

/** The parts of a run a turn works with: what it reads, and the objects it tells what happens. */
export interface TurnParts {
  input: ResolvedAgentInput;
  setup: RunSetup;
  /** The conversation and what the model calls know of it; a turn appends to it. */
  state: AgentState;
  status: RunStatus;
  /** The run's stream: each model reply and tool call is published to it. */
  stream: AgentStream;
  approvals: Approvals;
  /** The tools the workflow runs itself (timers, waits for events: workflows/workflow-tools.ts), started for this run. */
  workflowTools: WorkflowTools;
  /** Whether the run should continue as new at the next point it can. */
  handOver: HandOverRule;
  /** The turn's cancellation scope: why calls it cut short were not run. */
  turnScope: TurnScope;
  /** The steering messages that wait for the turn in progress (the session's inbox). */
  steering: { takeSteering(): Array<{ content: string; attachments?: AttachmentPart[] }> };
}

/** How a turn ended: answered, or handed to the next run (continue-as-new) at this point, to go on there. */
export type TurnOutcome = { kind: 'answered'; reply: TurnReply } | { kind: 'hand_over'; turn: TurnProgress };

/** A model call on its way: the stream's id for it, the agent and model asked, the turn's iteration, and the reply to come. */
interface AskedModel {
  call: string;
  agent: string;
  model: string;
  iteration: number;
  reply: Promise<ModelCallResult>;
}

/** What the loop does after a model reply: the reply's own next step, or the end of the token budget. */
type TurnStep = NextStep | { kind: 'token_budget'; answer: string };

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
 *
 * A turn's counters (`progress`) are what continue-as-new carries when the turn
 * goes on in the next run.
 */
export class Turn {
  readonly progress: TurnProgress;
  private readonly maySpawn: boolean;
  private readonly budget: number | undefined;
  /** Where this run's part of the turn began in the conversation (a turn carried over began in an earlier run). */
  private readonly resumedAt: number;
  private previousWasEmpty = false;
  /** The agent's guardrails: what the turn checks before the model sees a message, and before anyone sees an answer. */
  private readonly guardrails: TurnGuardrails;

  constructor(
    private readonly parts: TurnParts,
    private readonly start: TurnProgress,
  ) {
    this.progress = { ...start };
    delete this.progress.openRound;
    this.maySpawn = (parts.input.subagent?.depth ?? 0) < parts.input.maxSubagentDepth;
    this.budget = costBudgetOf(parts.input, parts.setup);
    this.guardrails = new TurnGuardrails(parts.input, parts.status, this.budget);
    this.resumedAt = parts.state.messages.length;
  }

  /** The agent that has the conversation now. */
  private get agent(): AgentSpec {
    return this.parts.setup.agents[this.parts.state.agent];
  }

  async run(): Promise<TurnOutcome> {
    const { state, status } = this.parts;
    status.turnStarted(this.progress, this.agent.maxIterations);

    // The previous run continued as new while a tool round waited for approval: that round goes on first.
    const { openRound } = this.start;
    // A fresh turn's message is checked before any model sees it, or beside the first call (runInParallel), whose
    // reply is then held until the check passed. A turn carried over was checked in its first run.
    let unchecked: string | undefined;
    if (!openRound && this.start.iteration === 0 && this.guards('input')) {
      const message = state.messages[this.start.checkpoint.length];
      if (message?.role === 'user') {
        const tripped = this.guards('input', 'before')
          ? await this.guard('input', [{ text: message.content }], 'before')
          : undefined;
        if (tripped) return this.tripped(tripped);
        if (this.guards('input', 'parallel')) unchecked = message.content;
      }
    }
    if (openRound) {
      const reply = state.messages[state.messages.length - 1];
      if (reply?.role !== 'assistant') throw new Error('a carried tool round must follow its reply');
      const round = { calls: reply.toolCalls, ...openRound };
      const ended = this.afterRound(await this.runRound(round), reply.content);
      if (ended) return ended;
      const upTo = this.summaryDue();
      if (upTo !== undefined) await this.summarise(upTo);
    }

    while (this.progress.agentIterations < this.agent.maxIterations) {
      if (this.parts.handOver.due()) return this.handOver();
      if (this.budgetSpent()) return this.answered(this.lastAnswer(), 'cost_budget');
      const steered = this.takeSteering();
      if (steered.length > 0 && this.guards('input')) {
        const tripped = await this.guard(
          'input',
          steered.map((text) => ({ text, steering: true })),
        );
        if (tripped) return this.tripped(tripped);
      }
      this.progress.iteration++;
      this.progress.agentIterations++;
      status.nextIteration();
      const beside = unchecked === undefined ? undefined : this.guard('input', [{ text: unchecked }], 'parallel');
      unchecked = undefined;
      const asked = this.askModel('auto', { held: beside !== undefined });
      if (beside) {
        const tripped = await this.guardrails.besideModel(beside, asked.reply);
        if (tripped) return this.tripped(tripped);
      }
      const response = this.takeReply(asked, await asked.reply);
      // Held only with output guardrails: an await (and the promises it makes) only then.
      const withheld = this.holds(asked, response) ? await this.checkAnswer(asked, response) : undefined;
      if (withheld) return this.tripped(withheld);
      const step: TurnStep = this.overBudget() ? { kind: 'token_budget', answer: response.message.content } : nextStep(response);
      if (step.kind !== 'run_tools') state.messages.push(...notRunResults(response.message.toolCalls, notRunBecause[step.kind]));
      const emptyTwice = this.previousWasEmpty && step.kind === 'empty';
      this.previousWasEmpty = step.kind === 'empty';
      switch (step.kind) {
        case 'final_answer':
          if (this.agent.outputSchema === undefined) return this.answered(step.answer, 'completed');
          if (step.output !== undefined) return this.answered(step.answer, 'completed', step.output);
          if (this.progress.outputRetries >= maxOutputRetries) return this.answered(step.answer, 'invalid_output');
          this.progress.outputRetries++;
          state.messages.push({ role: 'user', content: invalidOutputPrompt(step.outputProblem ?? 'it could not be read') });
          break;
        case 'truncated':
          return this.answered(step.answer, 'truncated');
        case 'refused':
          return this.answered(step.answer, 'refused');
        case 'token_budget':
          return this.answered(step.answer, 'token_budget');
        case 'empty':
          if (emptyTwice) return this.answered('', 'empty');
          state.messages.push({ role: 'user', content: emptyReplyPrompt });
          break;
        case 'run_tools': {
          const ended = this.afterRound(await this.runRound(step.round), step.text);
          if (ended) return ended;
          const upTo = this.summaryDue();
          if (upTo !== undefined) await this.summarise(upTo);
          break;
        }
        default: {
          const exhaustive: never = step;
          throw new Error(`unknown step ${JSON.stringify(exhaustive)}`);
        }
      }
    }

    // The limit was reached while the model still wanted tools: one last call that may not use them summarises the turn.
    if (this.budgetSpent()) return this.answered(this.lastAnswer(), 'cost_budget');
    state.messages.push({ role: 'user', content: reflectionPrompt });
    const askedForReflection = this.askModel('none');
    const reflection = this.takeReply(askedForReflection, await askedForReflection.reply);
    const withheld = this.holds(askedForReflection, reflection)
      ? await this.checkAnswer(askedForReflection, reflection)
      : undefined;
    if (withheld) return this.tripped(withheld);
    state.messages.push(...notRunResults(reflection.message.toolCalls, 'the iteration limit was reached'));
    return this.answered(reflection.message.content, 'max_iterations');
  }

  /**
   * Steering messages join the turn here, at the start of an iteration: after the last model call's tool calls all
   * have their results, before the next call, so a user message never comes between a call and its result. Each
   * provider's prepare step makes a user message after tool results what its API accepts (Anthropic: one user message
   * with the results first). Runs recorded before steering have no steering update, so nothing is taken and their
   * replay makes the commands it made: no patch is needed.
   */
  private takeSteering(): string[] {
    const { state, stream, status } = this.parts;
    const taken = this.parts.steering.takeSteering();
    for (const { content, attachments } of taken) {
      state.messages.push({ role: 'user', content, steering: true, ...(attachments && { attachments }) });
      const text = content.length > steeringPreviewChars ? `${content.slice(0, steeringPreviewChars)}…` : content;
      stream.publish({ type: 'steered', turn: status.turns + 1, iteration: this.progress.iteration, text });
    }
    return taken.map(({ content }) => content);
  }

  /** Whether the agent that has the conversation has guardrails for this stage (none: no promise is made). */
  private guards(stage: GuardrailStage, timing?: GuardrailTiming): boolean {
    return this.guardrails.has(this.agent, stage, timing);
  }

  /** Runs the guardrails of the agent that has the conversation (workflows/guardrails/turn-guardrails.ts). */
  private guard(stage: GuardrailStage, texts: GuardedText[], timing?: GuardrailTiming): Promise<TrippedGuardrail | undefined> {
    return this.guardrails.check(this.agent, stage, texts, this.progress.iteration, timing);
  }

  /** Whether a reply waits for the output guardrails of the agent that made it before it is published. */
  private holds(asked: AskedModel, response: ModelCallResult): boolean {
    return this.guardrails.holds(this.parts.setup.agents[asked.agent], response);
  }

  /**
   * A reply without tool calls is an answer a person will see: with output guardrails it was held (takeReply did not
   * publish it, and its text was not streamed), and goes out only once they passed it. Returns the guardrail that
   * tripped, when one did; the reply then goes out without its text. Called for a held reply only (holds): each
   * promise a workflow makes costs a stack trace in the SDK's promise hook, and most replies are not held.
   */
  private async checkAnswer(asked: AskedModel, response: ModelCallResult): Promise<TrippedGuardrail | undefined> {
    const { content } = response.message;
    const tripped = await this.guard('output', [
      { text: content, ...(response.output !== undefined && { output: response.output }) },
    ]);
    this.publishReply(asked, response, tripped ? { withheld: true } : {});
    return tripped;
  }

  /**
   * A guardrail stopped the turn: it is rolled back (the message that tripped an input guardrail never joins the
   * conversation, and an answer an output guardrail stopped is not kept), and ends with the reason; a session goes on.
   */
  private tripped(guardrail: TrippedGuardrail): TurnOutcome {
    const { state, status } = this.parts;
    rollBack(state, this.start.checkpoint);
    state.lastAnswer = '';
    state.lastOutput = undefined;
    this.progress.usage = status.turnUsage;
    return {
      kind: 'answered',
      reply: {
        answer: '',
        status: 'guardrail_tripped',
        iterations: this.progress.iteration,
        usage: status.turnUsage,
        agent: state.agent,
        guardrail,
      },
    };
  }

  /** What an interrupted turn replies: its last answer so far (if any), and what it spent. */
  interrupted(): TurnReply {
    const { state, status } = this.parts;
    const answer = this.lastAnswer();
    state.lastAnswer = answer;
    status.stopped();
    // The model calls that answered: a call the interrupt cut short is not counted.
    const answeredHere = state.messages.slice(this.resumedAt).filter((message) => message.role === 'assistant').length;
    return {
      answer,
      status: 'interrupted',
      iterations: this.start.iteration + answeredHere,
      usage: status.turnUsage,
      agent: state.agent,
    };
  }

  /** Runs a reply's tool calls (tool-round.ts). */
  private runRound(round: RoundRequest): Promise<RoundOutcome> {
    const agent = this.agent;
    const iteration = this.progress.iteration;
    return runToolRound(this.parts, round, this.parts.input.maxHandoffs - this.progress.handoffs, {
      maySpawn: this.maySpawn,
      budget: this.budget,
      // Only an agent with tool-call guardrails gets a guard: the others' calls cost no promise for it.
      ...(this.guards('tool_call') && {
        callGuard: { check: (call, parsed) => this.guardrails.checkCall(agent, call, parsed, iteration) },
      }),
    });
  }

  /**
   * After a tool round: a handoff passes the conversation on, and a spent token budget ends the turn. Returns how
   * the turn ends, when the round ends it; the caller then summarises a context grown past its budget. Not async,
   * like runRound: a round runs on every iteration, and each promise a workflow makes costs a stack trace in the
   * SDK's promise hook, live and at every replay (bench/NOTES.md).
   */
  private afterRound(outcome: RoundOutcome, text: string): TurnOutcome | undefined {
    const { state, status, stream } = this.parts;
    if (outcome.kind === 'hand_over') return this.handOver(outcome.openRound);
    if (outcome.guardrail) return this.tripped(outcome.guardrail);
    if (outcome.handoff) {
      stream.publish({ type: 'handoff', from: state.agent, to: outcome.handoff });
      state.agent = outcome.handoff;
      status.handedTo(this.agent.maxIterations);
      this.progress.handoffs++;
      this.progress.agentIterations = 0;
      this.progress.outputRetries = 0;
      this.previousWasEmpty = false;
    }
    // Subagents spend tokens too: once the budget is gone, the turn ends here, its tool calls all answered.
    if (this.overBudget()) return this.answered(text, 'token_budget');
    return undefined;
  }

  /** Asks the model; a `held` reply (input guardrails run beside the call) is not streamed as it is written. */
  private askModel(toolChoice: ToolChoice, { held = false } = {}): AskedModel {
    const { input, state, setup, status, stream } = this.parts;
    status.enter('calling_model');
    const current = this.agent;
    const call = stream.nextCallId();
    // The turn's own count (docs/how-it-works.md's iteration). The reflection call after the limit is not an iteration of its
    // own: it carries the last one's number.
    const iteration = Math.max(1, this.progress.iteration);
    const reply = callModel(input, state, {
      // The turn's number only where a run has several: a session.
      label: modelCallSummary(current, { iteration, ...(input.session && { turn: status.turnNumber }) }),
      agent: this.budget === undefined ? current : withBoundedOutput(current),
      tools: offeredToolNames(current, { subagents: this.maySpawn }),
      toolChoice,
      mcp: setup.mcpListing,
      modelQueues: setup.modelQueues,
      // Only runs that asked for it get the text as it is written; every run gets each reply whole. An agent with
      // output guardrails streams nothing: an answer is shown only once they passed it.
      ...(input.stream && !held && !this.guardrails.has(current, 'output') && { streamAs: call }),
    });
    return { call, agent: current.name, model: current.model, iteration, reply };
  }

  private takeReply(asked: AskedModel, response: ModelCallResult): ModelCallResult {
    const { state, status } = this.parts;
    status.spent(response.usage);
    state.messages.push(response.message);
    state.lastCall = {
      inputTokens: response.usage.inputTokens,
      outputTokens: response.usage.outputTokens,
      length: state.messages.length,
    };
    // The stored transcript now covers every message including this response; without one, the next call goes inline.
    state.transcript = response.transcript ?? { length: 0 };
    if (!this.holds(asked, response)) this.publishReply(asked, response);
    return response;
  }

  /** The reply on the stream; one an output guardrail stopped goes out `withheld`: without its text and thinking. */
  private publishReply(asked: AskedModel, response: ModelCallResult, { withheld = false } = {}): void {
    // What the provider let us read of the thinking, as the text is told; redacted thinking never.
    const thinking = withheld ? undefined : readableThinking(response.message.thinking);
    const text = withheld ? '' : response.message.content;
    this.parts.stream.publish({
      type: 'reply',
      call: asked.call,
      text,
      toolCalls: response.message.toolCalls.map((toolCall) => toolCall.name),
      iteration: asked.iteration,
      agent: asked.agent,
      model: asked.model,
      usage: response.usage,
      ...(response.message.thinking?.length && { thought: true as const }),
      ...(thinking && { thinking }),
    });
  }

  private answered(answer: string, outcome: TurnStatus, output?: unknown): TurnOutcome {
    const { state, status } = this.parts;
    state.lastAnswer = answer;
    state.lastOutput = output;
    this.progress.usage = status.turnUsage;
    const reply = { answer, status: outcome, iterations: this.progress.iteration, usage: status.turnUsage, agent: state.agent };
    return { kind: 'answered', reply: { ...reply, ...(output !== undefined && { output }) } };
  }

  private handOver(openRound?: TurnProgress['openRound']): TurnOutcome {
    return { kind: 'hand_over', turn: { ...this.progress, usage: this.parts.status.turnUsage, ...(openRound && { openRound }) } };
  }

  /** The turn's last answer so far (the last assistant text since it began). */
  private lastAnswer(): string {
    const sinceStart = this.parts.state.messages.slice(this.start.checkpoint.length);
    return [...sinceStart].reverse().find((message) => message.role === 'assistant')?.content ?? '';
  }

  /** Before each model call: would its worst case take the spend past the budget? Then the turn stops here. */
  private budgetSpent(): boolean {
    const { state, setup, status } = this.parts;
    return (
      this.budget !== undefined &&
      !spendCheck(state, status.usage, setup.prices[this.agent.model], this.agent, this.budget).affordable
    );
  }

  private overBudget(): boolean {
    const { input, status } = this.parts;
    const { usage } = status;
    return input.maxSessionTokens !== undefined && usage.inputTokens + usage.outputTokens > input.maxSessionTokens;
  }

  /**
   * When the model's input has grown past the context budget, older turns are summarised by a model call (an
   * ordinary retried activity) and the summary stands in for them from the next call on. The conversation itself
   * is kept whole. Returns where the summary would end, when one is due.
   */
  private summaryDue(): number | undefined {
    const { input, state } = this.parts;
    const inputTokens = state.lastCall?.inputTokens ?? 0;
    const budget = input.context.maxContextTokens;
    if (budget === undefined || inputTokens <= budget) return undefined;
    const upTo = summaryCutIndex(state.messages, input.context.keepRecentTurns);
    return upTo === undefined || upTo <= (state.summary?.upTo ?? 0) ? undefined : upTo;
  }

  private async summarise(upTo: number): Promise<void> {
    const { input, state, setup, status } = this.parts;
    status.enter('summarising');
    const agent = this.agent;
    const summary = await callModel(input, state, {
      label: `${agent.model} summary`,
      agent,
      tools: agent.tools,
      toolChoice: 'none',
      summarizeUpTo: upTo,
      mcp: setup.mcpListing,
      modelQueues: setup.modelQueues,
    });
    status.spent(summary.usage);
    state.summary = { content: summary.message.content, upTo };
  }
}
