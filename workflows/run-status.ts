import { setCurrentDetails } from '@temporalio/workflow';
import { describeCost } from '../core/cost';
import type { ResolvedAgentInput } from '../core/input';
import { defaultAgentName } from '../core/limits';
import type { AgentStatusSnapshot, PendingApproval } from '../core/result';
import { addUsage, zeroUsage, type Usage } from '../core/usage';
import type { TimedWait } from '../core/timed-wait';
import type { TurnProgress } from './state';

type Phase = Exclude<AgentStatusSnapshot['phase'], 'awaiting_approval'>;

/** What the status shows that others own: the queue (the inbox), the approvals, the model of the agent that answers. */
export interface StatusSources {
  queuedMessages(): number;
  pendingApprovals(): PendingApproval[];
  /** What the run's calls wait on in the workflow (timers, events: workflows/workflow-tools.ts). */
  waits?(): TimedWait[];
  model(): string;
}

/**
 * Where the run is, as the status query and the Web UI's current details show
 * it. Every change to it is a method here, and each change a watcher should see
 * at once refreshes the details. The counters continue-as-new carries
 * (iteration, usage, turns) start from the carried values.
 *
 * `iteration` counts the model calls of every turn of the run (and of the runs
 * before it in a session): it is what the run's result reports as `iterations`.
 * A turn's own count, which the turn limit bounds, is the turn's progress
 * (TurnReply's `iterations`, the stream's `reply.iteration`): the status reads it
 * from the turn, and the Web UI's labels and current details show that one
 * (docs/how-it-works.md: an iteration is one model call within a turn).
 */
export class RunStatus {
  private phase: Phase = 'starting';
  private iterationCount: number;
  private maxIterationCount: number;
  private inFlight: string[] = [];
  private runUsage: Usage;
  private currentTurnUsage: Usage;
  private turnCount: number;
  /** The current (or last) turn: its number and its progress, which the turn counts in and continue-as-new carries. */
  private turn: { number: number; progress: Pick<TurnProgress, 'iteration' | 'agentIterations'> } | undefined;

  constructor(
    private readonly input: ResolvedAgentInput,
    private readonly sources: StatusSources,
    /** The agent that has the conversation: the run's state owns it (handoffs change it). */
    private readonly agent: () => string,
  ) {
    const carried = input.carried;
    this.iterationCount = carried?.iteration ?? 0;
    // Known once prepareRun has told the agent's own limit.
    this.maxIterationCount = input.maxIterations ?? 0;
    this.runUsage = carried?.usage ?? zeroUsage;
    this.currentTurnUsage = carried?.turn?.usage ?? zeroUsage;
    this.turnCount = carried?.turns ?? 0;
  }

  /** Model calls over the whole run (every run of a session). */
  get iteration(): number {
    return this.iterationCount;
  }

  /** Tokens (and cost) over the whole run, subagents included. */
  get usage(): Usage {
    return this.runUsage;
  }

  /** Tokens of the current (or last) turn. */
  get turnUsage(): Usage {
    return this.currentTurnUsage;
  }

  /** User messages answered. */
  get turns(): number {
    return this.turnCount;
  }

  /** The current (or last) turn's number: 1 for a one-shot run, the message's for a session. 0 before the first. */
  get turnNumber(): number {
    return this.turn?.number ?? 0;
  }

  /** Model calls of the current (or last) turn: an iteration as docs/how-it-works.md defines it. */
  get turnIteration(): number {
    return this.turn?.progress.iteration ?? 0;
  }

  /**
   * A turn begins (or goes on after continue-as-new, with what it spent so far), under this agent's limit. `progress`
   * is the turn's own, read live: the turn counts its iterations there.
   */
  turnStarted(progress: Pick<TurnProgress, 'iteration' | 'agentIterations' | 'usage'>, maxIterations: number): void {
    this.turn = { number: this.turnCount + 1, progress };
    this.currentTurnUsage = progress.usage;
    this.maxIterationCount = maxIterations;
  }

  /** The conversation passed to an agent with a limit of its own. */
  handedTo(maxIterations: number): void {
    this.maxIterationCount = maxIterations;
  }

  nextIteration(): void {
    this.iterationCount++;
  }

  /** Tokens spent by a model call or a subagent: they count for the turn and the run at once. */
  spent(usage: Usage): void {
    this.runUsage = addUsage(this.runUsage, usage);
    this.currentTurnUsage = addUsage(this.currentTurnUsage, usage);
  }

  turnAnswered(): void {
    this.turnCount++;
  }

  enter(phase: Phase): void {
    this.phase = phase;
    this.show();
  }

  /** A turn ended between steps (interrupted): nothing runs any more. */
  stopped(): void {
    this.phase = 'waiting_for_message';
    this.inFlight = [];
  }

  toolStarted(summary: string): void {
    this.inFlight = [...this.inFlight, summary];
    this.show();
  }

  toolFinished(summary: string): void {
    const index = this.inFlight.indexOf(summary);
    if (index >= 0) this.inFlight = this.inFlight.filter((_, position) => position !== index);
    this.show();
  }

  /** A cancelled round: its calls no longer run. */
  toolsStopped(): void {
    this.inFlight = [];
  }

  snapshot(): AgentStatusSnapshot {
    const pendingApprovals = this.sources.pendingApprovals();
    const waits = this.sources.waits?.() ?? [];
    return {
      phase: pendingApprovals.length > 0 && this.phase === 'running_tools' ? 'awaiting_approval' : this.phase,
      agent: this.agent(),
      iteration: this.iterationCount,
      turn: this.turnNumber,
      turnIteration: this.turnIteration,
      ...(this.turn && this.turn.progress.agentIterations !== this.turn.progress.iteration
        ? { agentIteration: this.turn.progress.agentIterations }
        : {}),
      maxIterations: this.maxIterationCount,
      toolCallsInFlight: this.inFlight,
      usage: this.runUsage,
      turnUsage: this.currentTurnUsage,
      turns: this.turnCount,
      queuedMessages: this.sources.queuedMessages(),
      pendingApprovals,
      ...(waits.length > 0 && { waits }),
    };
  }

  /** Refreshes the Web UI's current details. */
  show(): void {
    setCurrentDetails(describeStatus(this.input, this.snapshot(), this.sources.model()));
  }
}

/** The Web UI's current details: Markdown, refreshed at every step. */
export function describeStatus(input: ResolvedAgentInput, status: AgentStatusSnapshot, model: string): string {
  const agent = status.agent === defaultAgentName ? '' : ` · agent \`${status.agent}\``;
  const lines = [
    `**${status.phase.replace(/_/g, ' ')}**${turnProgress(input, status)}${agent} · model \`${model}\``,
    `tokens: ${status.usage.inputTokens} in / ${status.usage.outputTokens} out${status.usage.reasoningTokens ? ` (${status.usage.reasoningTokens} of them thinking)` : ''}${status.usage.costUsd !== undefined || status.usage.unpricedCalls ? ` · spent ${describeCost(status.usage)}` : ''}`,
  ];
  if (input.session) lines.push(`session: ${status.turns} message(s) answered, ${status.queuedMessages} queued`);
  if (input.forkedFrom) lines.push(`forked from \`${input.forkedFrom.workflowId}\` at message ${input.forkedFrom.messageIndex}`);
  if (status.toolCallsInFlight.length > 0) lines.push(`tools running: ${status.toolCallsInFlight.join(', ')}`);
  for (const request of status.pendingApprovals) {
    const by = request.agents.length > 1 ? ` (asked by ${request.agents.join(' → ')})` : '';
    // The description is plain text with hidden characters escaped; a code block keeps Markdown from reading it.
    lines.push(`awaiting approval${by} · call \`${request.id}\`\n\n${fenced(request.description ?? request.summary)}`);
  }
  for (const wait of status.waits ?? []) lines.push(describeWait(wait));
  return lines.join('\n\n');
}

/** `waiting for event \`payment.received\` until 2026-12-09T09:00:00.000Z (UTC) · call \`c1\`: why`, and a sleep alike. */
export function describeWait(wait: TimedWait): string {
  const what = wait.event !== undefined ? `waiting for event \`${wait.event}\`` : 'sleeping';
  return `${what} until ${wait.until} (UTC) · call \`${wait.callId}\`: ${wait.reason}`;
}

/**
 * ` · turn 3 · iteration 1 of 20`: the turn's own count against the limit that bounds it (docs/how-it-works.md's iteration). The
 * turn number only in a session (a one-shot run has one turn); after a handoff in the turn, the limit bounds the
 * calls of the agent that got it, so those are told apart: ` · iteration 7 · 2 of 20 since the handoff`. Nothing
 * before the first turn.
 */
function turnProgress(input: ResolvedAgentInput, status: AgentStatusSnapshot): string {
  if (status.turn === 0) return '';
  const turn = input.session ? ` · turn ${status.turn}` : '';
  const limit =
    status.agentIteration === undefined
      ? ` of ${status.maxIterations}`
      : ` · ${status.agentIteration} of ${status.maxIterations} since the handoff`;
  return `${turn} · iteration ${status.turnIteration}${limit}`;
}

/** Text in a Markdown code block whose fence is longer than any run of backticks inside it. */
function fenced(text: string): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text}\n${fence}`;
}
