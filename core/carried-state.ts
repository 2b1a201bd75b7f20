import type { WorkflowStreamState } from '@temporalio/workflow-streams/workflow';
import type { AttachmentPart } from './attachments';
import type { Message, ToolResultMessage } from './messages';
import type { PendingApproval, TurnReply } from './result';
import type { TimedWait } from './timed-wait';
import type { Usage } from './usage';
import { isRecord } from './is-record';

/**
 * What continue-as-new carries from one run of a session to the next, declared once, here. The run writes it whole
 * (`carry` in workflows/state.ts) and the next run reads it whole (`readCarriedState`): no schema lists its fields,
 * so a field added here (or to a type it holds, such as Usage) crosses the boundary without being listed anywhere
 * else. The workflow's input check covers what callers send; this is what the run sends to itself.
 *
 * A later build must read what an earlier one wrote (a run in flight continues as new onto new code), so the shape
 * carries a version, and `readCarriedState` reads every older version into the current one. Each version, and what
 * it changed:
 *
 * - 1 (no `version` field): everything until issue 30. The next run checked it with the input's schema, which kept
 *   only the fields it listed: usage's cache counts, and anything added after the list was written, were dropped
 *   there. They were written, though, so reading a version 1 state now gets them back. Runs before 0.2 also carried
 *   `progressOffset` (where their progress events began; the progress query is gone) and, older still, `progress`
 *   (the events themselves), and had no `lastCall` or `stream`.
 * - 2: `version: 2`; `progressOffset` and `progress` gone.
 *
 * test/fixtures/carried-state/historical/ holds a state of each version, taken from recorded runs;
 * test/unit/carried-state.test.ts reads every one with this build. Add a version when a field changes meaning or
 * shape (a field only added, and optional, needs none: older states lack it, as older runs did).
 */
export const carriedStateVersion = 2;

export interface CarriedState {
  version: typeof carriedStateVersion;
  /** The whole conversation. */
  messages: Message[];
  /** Tokens and cost over every run of the session so far. */
  usage: Usage;
  /** Model calls over every run so far. */
  iteration: number;
  /** User messages answered so far. */
  turns: number;
  /** The transcript store id standing for messages[0..length), as the model activity last reported it. */
  transcript: TranscriptMark;
  summary?: ConversationSummary;
  /** Set when a run continued as new in the middle of a turn: that turn's iterations, tokens and starting point. */
  turn?: CarriedTurn;
  lastAnswer: string;
  lastOutput?: unknown;
  /** The last model call's tokens: the cost budget estimates the next call's input from them. */
  lastCall?: { inputTokens: number; outputTokens: number; length: number };
  /** The agent that has the conversation (a handoff may have changed it). */
  agent: string;
  inbox?: CarriedInbox;
  /** An endSession signal the previous run received: signals do not follow a run into the next. */
  endRequested?: boolean;
  /** The run's stream (workflows/agent-stream.ts): what is kept of its log, and where the current turn began. */
  stream?: { state: WorkflowStreamState; turnStart: number };
}

export interface TranscriptMark {
  id?: string;
  length: number;
}

export interface ConversationSummary {
  content: string;
  upTo: number;
}

/** Where a turn began, so a turn that fails can be rolled back and the conversation stays as it was. */
export interface TurnCheckpoint {
  length: number;
  transcript: TranscriptMark;
  summary?: ConversationSummary;
}

/** A turn in progress when a run continued as new: the next run resumes it from here. */
export interface CarriedTurn {
  iteration: number;
  /** Iterations of the agent that has the conversation, since it got it: its own maxIterations bounds them. */
  agentIterations: number;
  handoffs: number;
  outputRetries: number;
  /** The turn's tokens so far, over the runs it spans. */
  usage: Usage;
  checkpoint: TurnCheckpoint;
  /** A tool round still waiting for approvals, which the next run finishes (workflows/tool-round.ts). */
  openRound?: OpenRound;
}

/**
 * A tool round that was waiting only for people when the run continued as new: the calls' results so far, and the
 * calls still waiting (asked when, so their timeout runs on). The round's calls are those of the last message.
 */
export interface OpenRound {
  finished: ToolResultMessage[];
  needsApproval: string[];
  waiting: PendingApproval[];
  /** How each call that may still ask for approval is described (older runs carried none). */
  descriptions?: Record<string, { summary: string; description: string }>;
  /**
   * The calls that waited in the workflow itself (a sleep, a wait for an event: time/) when the run continued as new,
   * each with its absolute deadline: the next run waits on to the same moment, without asking for approval again.
   * Added after version 2, optional: older states have none, as older runs had no such calls.
   */
  waits?: TimedWait[];
}

/** A session's messages that continue-as-new hands to the next run: waiting, being answered, recently answered. */
export interface CarriedInbox {
  nextTicket: number;
  /** Each with the references of its attachments, if it had any (added after version 2, optional). */
  waiting: Array<{ ticket: number; content: string; attachments?: AttachmentPart[] }>;
  /** The message whose turn was in progress when the run continued as new. */
  current?: number;
  settled: SettledMessage[];
  /** Steering messages no turn had taken yet (since 0.5): the turn in progress takes them, or the next turn answers them. */
  steering?: Array<{ ticket: number; content: string; attachments?: AttachmentPart[] }>;
  /** Steering messages the turn in progress had taken (since 0.5): they get its reply. */
  joined?: number[];
}

/** A session message's outcome kept for a caller who asks for it again after a continue-as-new. */
export type SettledMessage =
  { ticket: number; reply: TurnReply } | { ticket: number; refusal: { message: string; type: string } };

export type CarriedStateRead = { ok: true; state: CarriedState } | { ok: false; problem: string };

/**
 * Reads a carried state of any version this build knows into the current shape. What it is not told to change it
 * keeps as it is, unknown fields included: it never drops what an older run wrote. It checks only what every version
 * holds and the run cannot do without, so that a caller who sends `carried` by hand is refused with a reason instead
 * of failing somewhere later. A state of a newer version than this build's (a run that continued as new on a newer
 * build, then was rolled back) is not guessed at: it throws a plain Error, which fails the workflow task, so the run
 * waits, retrying, for a build that reads it, instead of failing or losing what it carries.
 */
export function readCarriedState(raw: unknown): CarriedStateRead {
  if (!isRecord(raw)) return { ok: false, problem: `expected object, got ${describe(raw)}` };
  const version = raw.version ?? 1;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1)
    return { ok: false, problem: `version: expected a positive integer, got ${describe(version)}` };
  if (version > carriedStateVersion)
    throw new Error(
      `this build reads carried state up to version ${carriedStateVersion}, and the run carries version ${version}: ` +
        'it was written by a newer build; the workflow task is retried until a worker of that build (or a newer one) takes it',
    );
  const problem = essentialProblem(raw);
  if (problem) return { ok: false, problem };
  return { ok: true, state: version === 1 ? fromVersion1(raw) : (raw as unknown as CarriedState) };
}

/** Version 1 into version 2: the version is stated, and what runs before 0.2 carried of their progress is left behind. */
function fromVersion1(raw: Record<string, unknown>): CarriedState {
  const { progressOffset: _progressOffset, progress: _progress, ...rest } = raw;
  return { ...rest, version: carriedStateVersion } as unknown as CarriedState;
}

// The fields the run reads without a fallback, in every version.
function essentialProblem(raw: Record<string, unknown>): string | undefined {
  const count = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 0;
  const usage = (value: unknown) => isRecord(value) && count(value.inputTokens) && count(value.outputTokens);
  const checks: Array<[string, boolean, string]> = [
    ['messages', Array.isArray(raw.messages) && raw.messages.every(isRecord), 'an array of messages'],
    ['usage', usage(raw.usage), 'a usage with inputTokens and outputTokens'],
    ['iteration', count(raw.iteration), 'a count'],
    ['turns', count(raw.turns), 'a count'],
    ['transcript', isRecord(raw.transcript) && count(raw.transcript.length), 'a transcript mark with a length'],
    ['lastAnswer', typeof raw.lastAnswer === 'string', 'a string'],
    ['agent', typeof raw.agent === 'string', 'a string'],
    ['turn', raw.turn === undefined || (isRecord(raw.turn) && usage(raw.turn.usage)), 'a turn with its usage'],
  ];
  const broken = checks.filter(([, fine]) => !fine).map(([field, , expected]) => `${field}: expected ${expected}`);
  return broken.length > 0 ? broken.join('; ') : undefined;
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}
