import type { Message } from './messages';

/**
 * How much of the conversation the model sees. The workflow keeps the whole
 * conversation; the model activity sends this view of it.
 */
export interface ContextView {
  /** Tool-call arguments and tool results older than this many assistant turns are cut to a short prefix. */
  compactAfterTurns?: number;
  /** A summary that replaces the messages before index `upTo` (system messages are kept). */
  summary?: { content: string; upTo: number };
}

const compactedPrefixChars = 200;

export function applyContextView(messages: Message[], view: ContextView): Message[] {
  const summarised = view.summary ? replaceWithSummary(messages, view.summary) : messages;
  return view.compactAfterTurns !== undefined ? compactOldTurns(summarised, view.compactAfterTurns) : summarised;
}

export const summaryLead = 'Summary of the earlier conversation:\n';

function replaceWithSummary(messages: Message[], summary: { content: string; upTo: number }): Message[] {
  const system = messages.slice(0, summary.upTo).filter((message) => message.role === 'system');
  return [...system, { role: 'user', content: summaryLead + summary.content }, ...messages.slice(summary.upTo)];
}

/**
 * Walks back over the conversation counting assistant turns; in turns older than
 * `afterTurns`, long tool-call arguments and tool results shrink to a prefix with
 * a marker, and thinking is left out whole (a cut block would fail its signature;
 * both providers accept earlier turns without their thinking). Thinking since the
 * last user message stays: a tool loop in progress must keep it. User messages and
 * assistant text stay whole.
 */
export function compactOldTurns(messages: Message[], afterTurns: number): Message[] {
  let turnsSeen = 0;
  const compacted = [...messages];
  // Where the turn in progress began: its own message, not a steering message that joined it mid-loop (the tool loop
  // goes on across it, and must keep its thinking).
  let currentTurnStart = messages.length - 1;
  while (currentTurnStart >= 0 && !isTurnStart(messages[currentTurnStart])) currentTurnStart--;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    const old = turnsSeen >= afterTurns;
    if (message.role === 'assistant') {
      if (old) {
        const { thinking, ...withoutThinking } = message;
        compacted[index] = {
          ...(thinking && index > currentTurnStart ? message : withoutThinking),
          toolCalls: message.toolCalls.map((call) =>
            call.arguments.length > compactedPrefixChars
              ? { ...call, arguments: JSON.stringify({ compacted: shorten(call.arguments) }) }
              : call,
          ),
        };
      }
      turnsSeen++;
    } else if (message.role === 'tool' && old && message.content.length > compactedPrefixChars) {
      compacted[index] = { ...message, content: shorten(message.content) };
    }
  }
  return compacted;
}

function isTurnStart(message: Message): boolean {
  return message.role === 'user' && !message.steering;
}

function shorten(text: string): string {
  return `${text.slice(0, compactedPrefixChars)}… [compacted: ${text.length} characters]`;
}

/**
 * Where a summary may end: just before the `keepTurns`-th most recent assistant
 * message, so every tool result stays with its call. Returns undefined when the
 * conversation is too short to summarise.
 */
export function summaryCutIndex(messages: Message[], keepTurns: number): number | undefined {
  let turns = 0;
  for (let index = messages.length - 1; index > 0; index--) {
    if (messages[index].role === 'assistant' && ++turns === keepTurns) {
      return messages.slice(0, index).some((message) => message.role !== 'system') ? index : undefined;
    }
  }
  return undefined;
}
