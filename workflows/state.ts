import { carriedStateVersion, type CarriedState, type CarriedTurn, type TurnCheckpoint } from '../core/carried-state';
import type { ResolvedAgentInput } from '../core/input';
import type { Message } from '../core/messages';
import type { RunStatus } from './run-status';

export type { OpenRound, TurnCheckpoint } from '../core/carried-state';

/** A turn in progress: what continue-as-new carries of it when the run hands it over (core/carried-state.ts). */
export type TurnProgress = CarriedTurn;

/** Everything the workflow knows about a run; continue-as-new carries the durable part of it. */
export interface AgentState {
  messages: Message[];
  /** The transcript store id standing for messages[0..length), as the model activity last reported it. */
  transcript: { id?: string; length: number };
  summary?: { content: string; upTo: number };
  lastAnswer: string;
  lastOutput?: unknown;
  /** The agent that has the conversation now: the run's own, or the one a handoff passed it to. */
  agent: string;
  /** Model calls in this run, for the continue-as-new bound. */
  modelCallsThisRun: number;
  /** The last model call's tokens and the conversation's length after it: the cost budget estimates the next call's input from them. */
  lastCall?: { inputTokens: number; outputTokens: number; length: number };
}

export function initialState(input: ResolvedAgentInput): AgentState {
  const carried = input.carried;
  return {
    messages: carried?.messages ?? initialMessages(input),
    transcript: carried?.transcript ?? { length: 0 },
    summary: carried?.summary,
    lastAnswer: carried?.lastAnswer ?? '',
    lastOutput: carried?.lastOutput,
    lastCall: carried?.lastCall,
    agent: carried?.agent ?? input.agent,
    modelCallsThisRun: 0,
  };
}

export function checkpoint(state: AgentState): TurnCheckpoint {
  return { length: state.messages.length, transcript: state.transcript, summary: state.summary };
}

/** Puts the conversation back where the turn began; tokens spent stay counted. */
export function rollBack(state: AgentState, mark: TurnCheckpoint): void {
  state.messages.splice(mark.length);
  state.transcript = mark.transcript;
  state.summary = mark.summary;
}

/**
 * Every field of the declared state, each named here even when it is undefined: a field added to CarriedState
 * (core/carried-state.ts) does not compile until this says what the run carries in it, so it cannot be left out.
 */
type EveryField<T> = { [K in keyof Required<T>]: T[K] | undefined };

/** The parts of the carried state that the run's other parts (the turn, the inbox, the stream) hand in. */
export type CarriedByParts = Pick<CarriedState, 'turn' | 'inbox' | 'endRequested' | 'stream'>;

export function carry(state: AgentState, status: RunStatus, parts: CarriedByParts): CarriedState {
  // The whole of each part goes over (usage as the run summed it, every count in it): nothing is picked field by field.
  const carried: EveryField<CarriedState> = {
    version: carriedStateVersion,
    messages: state.messages,
    usage: status.usage,
    iteration: status.iteration,
    turns: status.turns,
    transcript: state.transcript,
    summary: state.summary,
    turn: parts.turn,
    lastAnswer: state.lastAnswer,
    lastOutput: state.lastOutput,
    lastCall: state.lastCall,
    agent: state.agent,
    inbox: parts.inbox,
    endRequested: parts.endRequested,
    stream: parts.stream,
  };
  // Fields left undefined are left out, as JSON leaves them out of the next run's input.
  return Object.fromEntries(Object.entries(carried).filter(([, value]) => value !== undefined)) as unknown as CarriedState;
}

// The agent's instructions are not part of the conversation: each model call is given the instructions of
// the agent that has the conversation then, so a handoff changes them.
function initialMessages(input: ResolvedAgentInput): Message[] {
  const attachments = input.attachments?.length ? { attachments: input.attachments } : {};
  return [...(input.messages ?? []), ...(input.prompt ? [{ role: 'user' as const, content: input.prompt, ...attachments }] : [])];
}
