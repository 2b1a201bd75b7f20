import { ActivityCancellationType, ActivityFailure, ApplicationFailure, isCancellation, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { AgentSpec } from '../core/agent-spec';
import { toolKind } from '../core/tool-names';
import { failureTypes } from '../core/errors';
import type { ApprovalDecision } from '../core/result';
import type { ToolCall, ToolResultMessage } from '../core/messages';
import { zeroUsage, type Usage } from '../core/usage';
import type { ToolActivityInput, ToolRunSettings } from '../activities';
import type { ToolActivitySettings } from '../tools/define-tool';
import type { SubagentOutcome } from './subagent-call';
import { parseToolArguments } from '../core/tool-arguments';
import { toolCallSummary } from './summaries';

export interface ToolRunContext {
  /** The agent whose reply asked for the calls: what each name it used stands for. */
  agent: AgentSpec;
  workspace: string;
  /** Activity settings of the tools, from prepareRun (and listMcpTools). */
  tools: Record<string, ToolRunSettings>;
  maxConcurrent: number;
  /** Starts a subagent as a child workflow; absent when this run is as deep as subagents may nest. */
  runSubagent?: (request: { callId: string; agent: string; task: string }) => Promise<SubagentOutcome>;
  /** Handoffs this turn still allows. */
  handoffsLeft: number;
  /** Whether a person must approve this call before it runs. */
  needsApproval(call: ToolCall): boolean;
  /** Waits for that decision. */
  approve(call: ToolCall): Promise<ApprovalDecision>;
  onStart(summary: string, call: ToolCall): void;
  /** Every call ends here, with its result and what it spent (a subagent's tokens and cost). */
  onFinish(summary: string, result: ToolResultMessage, usage: Usage): void;
}

/** What a reply's tool calls came to: one result per call, in the order asked; the agent a handoff chose. */
export interface ToolRound {
  results: ToolResultMessage[];
  handoff?: string;
}

/**
 * Runs the model's tool calls: each tool as an activity and each subagent as a
 * child workflow, concurrently, at most `maxConcurrent` at once; a handoff call
 * is answered at once and names the agent that takes over once the others are
 * done. Results come back in the order the model asked for them. Anything that
 * goes wrong with a call becomes an error result for the model; only
 * cancellation propagates.
 */
export function runToolCalls(calls: ToolCall[], context: ToolRunContext): Promise<ToolRound> {
  const results: ToolResultMessage[] = new Array(calls.length);
  let handoff: string | undefined;
  const work: number[] = [];
  calls.forEach((call, index) => {
    const kind = toolKind(context.agent, call.name);
    if (kind?.kind !== 'handoff') return void work.push(index);
    const reason =
      handoff !== undefined
        ? `Error: not run: the conversation is already handed to the agent "${handoff}"`
        : context.handoffsLeft <= 0
          ? 'Error: not run: this turn has used all the handoffs it may make'
          : undefined;
    if (reason === undefined) handoff = kind.agent;
    results[index] = finish(context, call.name, resultOf(call, reason ?? `Transferred the conversation to the agent "${kind.agent}".`, reason !== undefined));
  });
  const round = (): ToolRound => ({ results, ...(handoff !== undefined && { handoff }) });
  if (work.length === 0) return Promise.resolve(round());
  // One call, the usual round, goes without lanes and without async layers: each promise a workflow makes costs a
  // stack trace in the SDK's promise hook, on every iteration and at every replay.
  if (work.length === 1) {
    const [index] = work;
    return runOne(calls[index], context).then((result) => {
      results[index] = result;
      return round();
    });
  }
  let next = 0;
  const lane = async () => {
    while (next < work.length) {
      const index = work[next++];
      results[index] = await runOne(calls[index], context);
    }
  };
  return Promise.all(Array.from({ length: Math.min(context.maxConcurrent, work.length) }, lane)).then(round);
}

/** One call's result; a call that is answered without running anything is answered at once. */
function runOne(call: ToolCall, context: ToolRunContext): Promise<ToolResultMessage> {
  const done = (summary: string, content: string, isError: boolean, usage = zeroUsage) => finish(context, summary, resultOf(call, content, isError), usage);
  const kind = toolKind(context.agent, call.name);
  if (!kind || (kind.kind === 'subagent' && !context.runSubagent)) {
    const available = [...context.agent.tools, ...(context.runSubagent ? context.agent.subagents : [])].join(', ') || 'none';
    return Promise.resolve(done(call.name, `Error: unknown tool "${call.name}". Available tools: ${available}.`, true));
  }
  const parsedArguments = parseToolArguments(call.arguments);
  if (!parsedArguments.ok) return Promise.resolve(done(call.name, `Error: arguments for ${call.name} ${parsedArguments.problem}.`, true));
  const parsed = parsedArguments.value;
  const summary = toolCallSummary(call, parsed);
  if (context.needsApproval(call) || kind.kind === 'subagent') return runGated(call, parsed, summary, context, done);
  return runTool(call, parsed, summary, context, done);
}

type Done = (summary: string, content: string, isError: boolean, usage?: Usage) => ToolResultMessage;

/** A call that waits for a person's approval first, or a subagent's child workflow. */
async function runGated(call: ToolCall, parsed: unknown, summary: string, context: ToolRunContext, done: Done): Promise<ToolResultMessage> {
  if (context.needsApproval(call)) {
    const decision = await context.approve(call);
    if (!decision.approved) return done(summary, `Error: not run: ${decision.reason}`, true);
  }
  const kind = toolKind(context.agent, call.name);
  if (kind?.kind !== 'subagent') return runTool(call, parsed, summary, context, done);
  const task = (parsed as { task?: unknown } | null)?.task;
  if (typeof task !== 'string' || !task.trim()) return done(summary, `Error: ${call.name} takes {"task": "<what to do>"}.`, true);
  context.onStart(summary, call);
  const outcome = await context.runSubagent!({ callId: call.id, agent: kind.agent, task });
  return done(summary, outcome.content, outcome.isError, outcome.usage);
}

/** A tool as an activity of its own name; anything but cancellation becomes an error result for the model. */
function runTool(call: ToolCall, parsed: unknown, summary: string, context: ToolRunContext, done: Done): Promise<ToolResultMessage> {
  const settings = context.tools[call.name];
  context.onStart(summary, call);
  const retry = { maximumAttempts: settings.maximumAttempts, initialInterval: settings.initialRetryInterval, backoffCoefficient: 2 };
  const cancellationType = ActivityCancellationType.WAIT_CANCELLATION_COMPLETED;
  // A tool that opted in (`activity: { local: true }`) runs inside the workflow task: no activity events of its own.
  const activity = (
    settings.local
      ? proxyLocalActivities<ToolActivities>({ summary, startToCloseTimeout: settings.timeout, cancellationType, retry })
      : proxyActivities<ToolActivities>({ summary, startToCloseTimeout: settings.timeout, heartbeatTimeout: '30s', cancellationType, retry })
  )[call.name];
  let running: Promise<string>;
  try {
    running = activity({ arguments: parsed, workspace: context.workspace, callId: call.id, ...(settings.mcp && { mcp: settings.mcp }) });
  } catch (error) {
    running = Promise.reject(error);
  }
  return running.then(
    (output) => done(summary, output, false),
    (error: unknown) => {
      if (isCancellation(error)) throw error;
      return done(summary, `Error: ${describeToolFailure(call.name, error, settings)}`, true);
    },
  );
}

type ToolActivities = Record<string, (input: ToolActivityInput) => Promise<string>>;

function resultOf(call: ToolCall, content: string, isError: boolean): ToolResultMessage {
  return { role: 'tool', toolCallId: call.id, toolName: call.name, content, isError };
}

function finish(context: ToolRunContext, summary: string, result: ToolResultMessage, usage: Usage = zeroUsage): ToolResultMessage {
  context.onFinish(summary, result, usage);
  return result;
}

function describeToolFailure(name: string, error: unknown, settings: ToolActivitySettings): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure && cause.nonRetryable) {
    // Our own refusals and argument errors: the message is for the model as it is.
    if (cause.type === failureTypes.invalidToolArguments || cause.type === failureTypes.toolRefused) return cause.message;
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return `${name} failed after ${settings.maximumAttempts} attempt(s): ${message}`;
}
