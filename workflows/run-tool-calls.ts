import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
} from '@temporalio/workflow';
import type { AgentSpec } from '../core/agent-spec';
import { toolKind } from '../core/tool-names';
import { failureTypes } from '../core/errors';
import type { ResolvedAgentInput } from '../core/input';
import type { ApprovalDecision, PendingApproval } from '../core/result';
import { defaultRuleName, deniedPathsFor, refusalText } from '../core/approval-policy';
import type { ToolCall, ToolResultMessage } from '../core/messages';
import { attachmentsProblem, type AttachmentPart } from '../core/attachments';
import type { TimedWait } from '../core/timed-wait';
import { preview } from '../core/stream-events';
import { streamToolInput } from '../core/stream-tool-input';
import { withPathsShown } from '../core/workspace-path';
import { zeroUsage, type Usage } from '../core/usage';
import type { RunSetup, ToolActivityInput } from '../activities';
import type { EchoedToolOutput } from '../activities/tool-activity';
import type { InWorkflowSettings, ToolActivitySettings } from '../tools/define-tool';
import type { AgentStream } from './agent-stream';
import type { Approvals } from './approvals';
import type { AgentState } from './state';
import type { RunStatus } from './run-status';
import { boundForAgent, type WorkflowTools } from './workflow-tools';
import { runSubagent } from './subagent-call';
import { parseToolArguments } from '../core/tool-arguments';
import { guardrailEndedTurnText, guardrailRefusalText, type TrippedGuardrail } from '../core/guardrails';
import { editedCallStep } from '../core/edited-call';
import { toolCallSummary } from './summaries';
import type { RoundLedger } from './round-ledger';
import { runPriority } from './run-priority';
import { echoesCallId, toolActivityId } from './tool-activity-id';
import { evalToolAnswer } from './eval-tool-gate';
import { answerOf, mayAskPerson, questionRequest, resumedActivityId } from './tool-questions';
import { isToolQuestionOutput, maxQuestionsPerCall, type ToolQuestion, type ToolQuestionOutput } from '../core/tool-question';

/** What a reply's tool calls run with: the run's settings and parts, the agent that asked, and the round's ledger. */
export interface CallsSetting {
  input: ResolvedAgentInput;
  /** Activity settings of the tools, from prepareRun (and listMcpTools). */
  setup: RunSetup;
  /** The agent whose reply asked for the calls: what each name it used stands for. */
  agent: AgentSpec;
  status: RunStatus;
  stream: AgentStream;
  approvals: Approvals;
  /** The tools the workflow runs itself (workflows/workflow-tools.ts). */
  workflowTools: WorkflowTools;
  /** The run's state: an edited call changes the conversation the stored transcript stood for. */
  state: Pick<AgentState, 'transcript'>;
  /** What the round knows of its calls: results so far, which ask for approval, when they asked. */
  ledger: RoundLedger;
  /** Handoffs this turn still allows. */
  handoffsLeft: number;
  /** Whether a subagent may be started: not when this run is as deep as subagents may nest. */
  maySpawn: boolean;
  /** The run's cost budget in dollars, of which a subagent gets what is left. */
  budget: number | undefined;
  /** The agent's tool-call guardrails, when it has some: each call is checked just before it runs. */
  callGuard?: CallGuard;
}

/** What the tool-call guardrails of the agent that asked decide of a call (workflows/guardrails/turn-guardrails.ts). */
export interface CallGuard {
  check(call: ToolCall, parsed: unknown): Promise<{ tripped: TrippedGuardrail; endsTurn: boolean } | undefined>;
  /** The guardrail that ended the turn, once one has (`onTrip: 'end_turn'`): no call of the round starts after it. */
  endedBy?: TrippedGuardrail;
}

/** What a reply's tool calls came to: one result per call, in the order asked, each found by its call id; the agent a handoff chose. */
export interface ToolRound {
  results: ToolResultMessage[];
  handoff?: string;
}

/**
 * Runs the model's tool calls: each tool as an activity and each subagent as a
 * child workflow, concurrently, at most `maxConcurrentTools` at once; a handoff
 * call is answered at once and names the agent that takes over once the others
 * are done. Results come back in the order the model asked for them. Anything
 * that goes wrong with a call becomes an error result for the model; only
 * cancellation propagates. Each call's start and result go to the run's stream
 * and status as they happen.
 */
export function runToolCalls(calls: ToolCall[], setting: CallsSetting): Promise<ToolRound> {
  let handoff: string | undefined;
  const work: ToolCall[] = [];
  for (const call of calls) {
    const kind = toolKind(setting.agent, call.name);
    if (kind?.kind !== 'handoff') {
      work.push(call);
      continue;
    }
    const reason =
      handoff !== undefined
        ? `Error: not run: the conversation is already handed to the agent "${handoff}"`
        : setting.handoffsLeft <= 0
          ? 'Error: not run: this turn has used all the handoffs it may make'
          : undefined;
    if (reason === undefined) handoff = kind.agent;
    finish(
      setting,
      call.name,
      resultOf(call, reason ?? `Transferred the conversation to the agent "${kind.agent}".`, reason !== undefined),
    );
  }
  // Every result was filed under its call's id as it came (finish): the order of the calls is the order asked,
  // whatever order they ran or ended in.
  const round = (): ToolRound => ({
    results: calls.map((call) => resultFor(call, setting)),
    ...(handoff !== undefined && { handoff }),
  });
  if (work.length === 0) return Promise.resolve(round());
  // One call, the usual round, goes without lanes, and with `then` rather than async/await: each promise a workflow
  // makes costs a stack trace in the SDK's promise hook, live and at every replay (bench/NOTES.md).
  if (work.length === 1) return runOne(work[0], setting).then(round);
  let next = 0;
  const lane = async () => {
    while (next < work.length) await runOne(work[next++], setting);
  };
  return Promise.all(Array.from({ length: Math.min(setting.input.maxConcurrentTools, work.length) }, lane)).then(round);
}

/** The result filed under the call's id; a call without one is a bug, which fails the workflow task rather than the pairing. */
function resultFor(call: ToolCall, setting: CallsSetting): ToolResultMessage {
  const result = setting.ledger.finished.get(call.id);
  if (!result) throw new Error(`the tool round has no result for call ${call.id} (${call.name}): a bug in durable-agent`);
  return result;
}

/** One call's result; a call that is answered without running anything is answered at once. */
function runOne(call: ToolCall, setting: CallsSetting): Promise<ToolResultMessage> {
  const done = (summary: string, content: string, isError: boolean, usage = zeroUsage, attachments?: AttachmentPart[]) =>
    finish(setting, summary, resultOf(call, content, isError, attachments), usage);
  const kind = toolKind(setting.agent, call.name);
  if (!kind || (kind.kind === 'subagent' && !setting.maySpawn)) {
    const available = [...setting.agent.tools, ...(setting.maySpawn ? setting.agent.subagents : [])].join(', ') || 'none';
    return Promise.resolve(done(call.name, `Error: unknown tool "${call.name}". Available tools: ${available}.`, true));
  }
  const parsedArguments = parseToolArguments(call.arguments);
  if (!parsedArguments.ok)
    return Promise.resolve(done(call.name, `Error: arguments for ${call.name} ${parsedArguments.problem}.`, true));
  const parsed = parsedArguments.value;
  const summary = toolCallSummary(call, parsed, shownPathsOf(call, setting));
  // An eval's run answers a recorded call itself and refuses what may not run (workflows/eval-tool-gate.ts): the one
  // place a call is decided before any activity, child or approval. Runs without evalTools never come in here.
  const { evalTools } = setting.input;
  const evalAnswer = evalTools && evalToolAnswer(evalTools, call, parsed, kind, setting.setup.tools[call.name]);
  if (evalAnswer) return Promise.resolve(done(`${summary} ${evalAnswer.label}`, evalAnswer.content, evalAnswer.isError));
  const decision = setting.ledger.decide(call);
  // Refused by the approval policy: not run, nothing asked, and the model is told which rule said so.
  if (decision.action === 'deny')
    return Promise.resolve(
      finish(setting, summary, resultOf(call, `Error: ${refusalText(decision)}`, true), zeroUsage, { rule: decision.rule }),
    );
  const checked: CheckedCall = { call, parsed, summary, done, ...(decision.rule !== defaultRuleName && { rule: decision.rule }) };
  if (decision.action === 'ask' || kind.kind === 'subagent') return runGated(checked, setting);
  return runTool(checked, setting);
}

type Done = (
  summary: string,
  content: string,
  isError: boolean,
  usage?: Usage,
  attachments?: AttachmentPart[],
) => ToolResultMessage;

/** A call whose arguments parsed: what runs it needs, and how it reports its result. */
interface CheckedCall {
  call: ToolCall;
  parsed: unknown;
  summary: string;
  done: Done;
  /** The approval policy's rule that let it run (or asked, and a person approved), named on tool_start. */
  rule?: string;
  /** The arguments the tool-call guardrails already passed (before a person was asked); an edit is checked again. */
  guardedArguments?: string;
}

/** A call that waits for a person's approval first, or a subagent's child workflow. */
async function runGated(asked: CheckedCall, setting: CallsSetting): Promise<ToolResultMessage> {
  let checked = asked;
  // The tool-call guardrails first: a person is not asked about a call they would refuse anyway.
  if (setting.callGuard) {
    const refused = await guardrailRefusal(checked, setting, setting.callGuard);
    if (refused) return refused;
    checked = { ...checked, guardedArguments: checked.call.arguments };
  }
  // The rules a person has answered for this call: their approval of arguments they wrote themselves stands for
  // those; a rule that asks only of the edited arguments puts the call to them again, with those arguments.
  const answered = new Set<string>();
  const asking = () => {
    const step = editedCallStep(setting.ledger.decide(checked.call), answered);
    return step.kind === 'ask' ? step.rule : undefined;
  };
  for (let rule = asking(); rule !== undefined; rule = asking()) {
    const { call, parsed, summary, done } = checked;
    answered.add(rule);
    checked = { ...checked, rule };
    const decision = await approval(call, parsed, setting, rule, call.originalArguments !== undefined);
    if (!decision.approved) return done(summary, `Error: not run: ${decision.reason}`, true);
    if (decision.arguments === undefined) break;
    // The person's arguments: parsed like the model's, then decided again; the tool's schema checks them as it runs.
    const edit = parseToolArguments(decision.arguments);
    if (!edit.ok) return done(summary, `Error: not run: the edited arguments for ${call.name} ${edit.problem}.`, true);
    call.originalArguments ??= call.arguments;
    call.arguments = decision.arguments;
    // The stored transcript holds the model's arguments: the next model call goes inline, and stores the call that ran.
    setting.state.transcript = { length: 0 };
    setting.ledger.edited(call);
    const again = editedCallStep(setting.ledger.decide(call), answered);
    const editedSummary = toolCallSummary(call, edit.value, shownPathsOf(call, setting));
    if (again.kind === 'refuse')
      return finish(setting, editedSummary, resultOf(call, `Error: ${refusalText(again.decision)}`, true), zeroUsage, {
        rule: again.decision.rule,
      });
    checked = { ...checked, parsed: edit.value, summary: editedSummary };
  }
  const { call, parsed, summary, done } = checked;
  const kind = toolKind(setting.agent, call.name);
  if (kind?.kind !== 'subagent') return runTool(checked, setting);
  const task = (parsed as { task?: unknown } | null)?.task;
  if (typeof task !== 'string' || !task.trim()) return done(summary, `Error: ${call.name} takes {"task": "<what to do>"}.`, true);
  return guarded(checked, setting, async () => {
    started(setting, checked);
    const outcome = await spawn(setting, { callId: call.id, agent: kind.agent, task });
    return done(summary, outcome.content, outcome.isError, outcome.usage);
  });
}

/** Waits for a person's decision on a call, counted as waiting meanwhile (a round of waits only may be handed over). */
async function approval(
  call: ToolCall,
  parsed: unknown,
  setting: CallsSetting,
  rule: string,
  edited: boolean,
): Promise<ApprovalDecision> {
  const { ledger } = setting;
  const askedAt = ledger.askedAt(call.id);
  ledger.waiting++;
  try {
    const { summary, description } = ledger.describe(call);
    const request: PendingApproval = {
      id: call.id,
      tool: call.name,
      summary,
      description,
      agents: [setting.agent.name],
      askedAt,
      rule,
      ...(edited && { edited: true }),
    };
    // The arguments go to the stream only (bounded as on tool_start), for the card that asks; not into the status.
    return await setting.approvals.await(request, setting.input.approval?.timeoutSeconds, shownInput(call, parsed, setting));
  } finally {
    ledger.waiting--;
  }
}

/** A subagent, given what is left of the run's token and cost budgets at the moment it starts. */
function spawn(setting: CallsSetting, request: { callId: string; agent: string; task: string }) {
  const { input, status, budget } = setting;
  const { usage } = status;
  const tokensLeft =
    input.maxSessionTokens !== undefined ? input.maxSessionTokens - usage.inputTokens - usage.outputTokens : undefined;
  const dollarsLeft = budget !== undefined ? budget - (usage.costUsd ?? 0) : undefined;
  return runSubagent(input, { ...request, tokensLeft, dollarsLeft });
}

/**
 * Runs `run` once the agent's tool-call guardrails passed the call, with the arguments that will run (after the policy
 * and any person's approval, an edit's included). An agent without tool-call guardrails costs no promise here.
 */
function guarded(checked: CheckedCall, setting: CallsSetting, run: () => Promise<ToolResultMessage>): Promise<ToolResultMessage> {
  const guard = setting.callGuard;
  if (!guard) return run();
  return guardrailRefusal(checked, setting, guard).then((refused) => refused ?? run());
}

/**
 * The result of a call the tool-call guardrails refuse, or undefined when it may run. A tripped one refuses the call,
 * the model reading the reason; one that ends the turn refuses it too, and every call of the round that has not
 * started yet. Arguments they passed already (before a person was asked, and not edited since) are not checked twice.
 */
function guardrailRefusal(checked: CheckedCall, setting: CallsSetting, guard: CallGuard): Promise<ToolResultMessage | undefined> {
  const { call, parsed, summary } = checked;
  const refuse = (content: string, guardrail: string) =>
    finish(setting, summary, resultOf(call, `Error: ${content}`, true), zeroUsage, { guardrail });
  if (guard.endedBy) return Promise.resolve(refuse(guardrailEndedTurnText(guard.endedBy), guard.endedBy.name));
  if (checked.guardedArguments === call.arguments) return Promise.resolve(undefined);
  return guard.check(call, parsed).then((trip) => {
    if (trip?.endsTurn) guard.endedBy ??= trip.tripped;
    if (trip) return refuse(guardrailRefusalText(trip.tripped), trip.tripped.name);
    // Another call's guardrail ended the turn while this one was checked: it does not start.
    if (guard.endedBy) return refuse(guardrailEndedTurnText(guard.endedBy), guard.endedBy.name);
    return undefined;
  });
}

/** A tool as an activity of its own name, once its guardrails passed it; anything but cancellation becomes an error result. */
function runTool(checked: CheckedCall, setting: CallsSetting): Promise<ToolResultMessage> {
  return guarded(checked, setting, () => runActivity(checked, setting));
}

function runActivity(checked: CheckedCall, setting: CallsSetting): Promise<ToolResultMessage> {
  const { call, summary, done } = checked;
  const settings = setting.setup.tools[call.name];
  if (settings.inWorkflow) return runInWorkflow(checked, setting, boundForAgent(settings.inWorkflow, setting.agent));
  started(setting, checked);
  // A remote tool that may ask the person mid-call (workflows/tool-questions.ts); a local activity never does.
  const mayAsk = !settings.local && (settings.mcp !== undefined || settings.asksPerson === true) && mayAskPerson();
  const failed = (error: unknown) => {
    if (isCancellation(error)) throw error;
    return done(summary, `Error: ${describeToolFailure(call.name, error, settings)}`, true);
  };
  // `then`, not async/await: one promise per call rather than two (the SDK's promise hook, as in runToolCalls).
  return scheduleTool(checked, setting, mayAsk ? { mayAsk: true } : {}, 0).then((answered) => {
    if (isToolQuestionOutput(answered)) return askAndResume(checked, setting, answered.question).catch(failed);
    if (typeof answered === 'string') return done(summary, answered, false);
    // A recorded result for another call: this code starts the calls in another order than the run recorded.
    // Failing the workflow task (a plain Error) stops the run here, and fails `agent replay`, rather than pair
    // them wrongly. (An object without a call id is a remote activity's output with attachments.)
    if (answered.callId !== undefined && answered.callId !== call.id)
      throw new Error(
        `nondeterminism: the local activity result recorded for tool call ${answered.callId} came back to call ${call.id}`,
      );
    return done(summary, answered.output, false, zeroUsage, answered.attachments);
  }, failed);
}

/**
 * The tool asked the person mid-call: the question goes through the run's approvals (every surface asks it the same
 * way), and the call goes on in a new activity with the answer, as often as the tool asks again (up to
 * maxQuestionsPerCall). The question is the previous activity's result, in history: a worker killed meanwhile loses
 * nothing. Not counted as waiting, so a round with a question open is never handed to the next run.
 */
async function askAndResume(checked: CheckedCall, setting: CallsSetting, first: ToolQuestion): Promise<ToolResultMessage> {
  const { call, summary, done } = checked;
  let question = first;
  for (let round = 1; round <= maxQuestionsPerCall; round++) {
    const request = questionRequest(call, question, [setting.agent.name]);
    const decision = await setting.approvals.await(request, setting.input.approval?.timeoutSeconds);
    const answered = await scheduleTool(checked, setting, { mayAsk: true, answer: answerOf(decision, question) }, round);
    if (typeof answered === 'string') return done(summary, answered, false);
    if (!isToolQuestionOutput(answered)) return done(summary, answered.output, false, zeroUsage, answered.attachments);
    question = answered.question;
  }
  return done(summary, `Error: not run: ${call.name} asked more than ${maxQuestionsPerCall} questions`, true);
}

/** One activity of a tool call: the first (`round` 0), or one that resumes it with the person's answer. */
function scheduleTool(
  checked: CheckedCall,
  setting: CallsSetting,
  asking: Pick<ToolActivityInput, 'mayAsk' | 'answer'>,
  round: number,
): Promise<string | EchoedToolOutput | ToolQuestionOutput> {
  const { call, parsed, summary } = checked;
  const settings = setting.setup.tools[call.name];
  const retry = {
    maximumAttempts: settings.maximumAttempts,
    initialInterval: settings.initialRetryInterval,
    backoffCoefficient: 2,
  };
  const cancellationType = ActivityCancellationType.WAIT_CANCELLATION_COMPLETED;
  // A tool that opted in (`activity: { local: true }`) runs inside the workflow task: no activity events of its own.
  // A local activity's id is always its sequence number in this SDK (1.24 takes no activityId for one): it answers
  // with the call id instead, checked by runTool.
  const firstId = settings.local ? undefined : toolActivityId(call.id);
  const activityId = round === 0 ? firstId : resumedActivityId(firstId, round);
  const echoCallId = settings.local && echoesCallId();
  const activity = (
    settings.local
      ? proxyLocalActivities<ToolActivities>({ summary, startToCloseTimeout: settings.timeout, cancellationType, retry })
      : proxyActivities<ToolActivities>({
          ...(activityId !== undefined && { activityId }),
          summary,
          startToCloseTimeout: settings.timeout,
          // The tool's own (defineTool's activity settings), recorded in the run's setup; 30 s before it had one.
          heartbeatTimeout: settings.heartbeatTimeout ?? '30s',
          cancellationType,
          retry,
          ...runPriority(),
        })
  )[call.name];
  const denied = deniedPathsFor(setting.agent.policy, call.name);
  try {
    return activity({
      arguments: parsed,
      workspace: setting.input.workspace,
      callId: call.id,
      ...(settings.mcp && { mcp: settings.mcp }),
      // The policy's refusing path rules, for the tool to check against the real path it opens (a symlink).
      ...(denied.length > 0 && { deniedPaths: denied }),
      ...(echoCallId && { echoCallId }),
      // An eval's tools run only in a scratch copy: the activity refuses any other workspace.
      ...(setting.input.evalTools && { evalScratch: true }),
      ...asking,
    });
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * A tool the workflow runs itself (workflows/workflow-tools.ts): a durable timer or a wait for an event, counted as
 * waiting meanwhile, so a round of waits may be handed to the next run with the wait carried. A cancelled turn
 * cancels the wait at once.
 */
function runInWorkflow(checked: CheckedCall, setting: CallsSetting, bound: InWorkflowSettings): Promise<ToolResultMessage> {
  const { call, parsed, summary, done } = checked;
  const { ledger } = setting;
  started(setting, checked);
  ledger.waiting++;
  // What it waits for and until when, on the stream (the web chat shows it), as the status query has it.
  const began = (wait: TimedWait) => setting.stream.publish({ type: 'waiting', ...wait });
  const carried = ledger.carriedWait(call.id);
  return setting.workflowTools.run(call.name, { call, parsed, settings: bound, carried }, began).then(
    (result) => {
      ledger.waiting--;
      return done(summary, result.content, result.isError);
    },
    (error: unknown) => {
      ledger.waiting--;
      throw error;
    },
  );
}

type ToolActivities = Record<string, (input: ToolActivityInput) => Promise<string | EchoedToolOutput | ToolQuestionOutput>>;

/** The call's path arguments (from the run's setup) and the workspace they are shown against. */
function shownPathsOf(call: ToolCall, setting: CallsSetting): { paths: string[]; workspace: string } {
  return { paths: setting.setup.tools[call.name]?.paths ?? [], workspace: setting.input.workspace };
}

/** The arguments as the stream shows them: path arguments resolved, as the approval shows them, then bounded. */
function shownInput(call: ToolCall, parsed: unknown, setting: CallsSetting): unknown {
  const { paths, workspace } = shownPathsOf(call, setting);
  return streamToolInput(withPathsShown(parsed, paths, workspace));
}

function resultOf(call: ToolCall, content: string, isError: boolean, attachments?: AttachmentPart[]): ToolResultMessage {
  const result: ToolResultMessage = { role: 'tool', toolCallId: call.id, toolName: call.name, content, isError };
  if (!attachments?.length) return result;
  // The tool activity checked them; a result that comes back otherwise (a worker of other code) is checked here too,
  // and is told to the model rather than carried into history.
  const problem = attachmentsProblem(attachments);
  if (problem) return { ...result, content: `${content}\n[the tool's attachments were refused: ${problem}]` };
  return { ...result, attachments };
}

function started(setting: CallsSetting, { call, parsed, summary, rule }: CheckedCall): void {
  // The arguments bounded for the stream (every event is carried in history); the activity gets them whole. They are
  // the model's own output, already in history as the activity's input: nothing of the worker's (keys, MCP secrets).
  setting.stream.publish({
    type: 'tool_start',
    id: call.id,
    summary,
    name: call.name,
    input: shownInput(call, parsed, setting),
    ...(rule !== undefined && { rule }),
  });
  setting.status.toolStarted(summary);
}

/** Every call ends here, with its result and what it spent (a subagent's tokens and cost), which count at once. */
function finish(
  setting: CallsSetting,
  summary: string,
  result: ToolResultMessage,
  usage: Usage = zeroUsage,
  refusedBy?: { rule: string } | { guardrail: string },
): ToolResultMessage {
  setting.ledger.finished.set(result.toolCallId, result);
  // A subagent's spend counts at once: the budget checks of calls still running see it.
  setting.status.spent(usage);
  setting.stream.publish({
    type: 'tool_result',
    id: result.toolCallId,
    summary,
    isError: result.isError,
    preview: preview(result.content),
    ...refusedBy,
  });
  setting.status.toolFinished(summary);
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
