import type { Message, ToolCall, ToolResultMessage } from './messages';

/**
 * The invariant both provider APIs enforce and every request we send keeps: each
 * assistant tool call is followed by exactly one result, linked by its call id,
 * before any other message. The workflow closes every path that would leave a
 * call unanswered (see notRunResults); the model activity checks the invariant
 * before every request, so a violation is our bug, reported loudly, never a
 * request a provider refuses.
 */

/** Every way the conversation breaks the pairing rule; empty when it keeps it. */
export function toolPairingProblems(messages: Message[]): string[] {
  const problems: string[] = [];
  let open = new Map<string, string>();
  let openedAt = -1;
  // Runs before every model request over the whole conversation: no allocation unless a round is left open.
  const closeRound = (index: number) => {
    if (open.size === 0) return;
    problems.push(
      `tool call(s) ${[...open.keys()].join(', ')} of message ${openedAt} have no result before ${index < messages.length ? `message ${index}` : 'the end'}`,
    );
    open = new Map();
  };
  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      if (open.has(message.toolCallId)) open.delete(message.toolCallId);
      else problems.push(`tool result of message ${index} (${message.toolCallId}) answers no open tool call`);
      return;
    }
    closeRound(index);
    if (message.role === 'assistant' && message.toolCalls.length > 0) {
      openedAt = index;
      for (const call of message.toolCalls) {
        if (open.has(call.id)) problems.push(`message ${index} has two tool calls with id ${call.id}`);
        open.set(call.id, call.name);
      }
    }
  });
  closeRound(messages.length);
  return problems;
}

/**
 * Error results for tool calls a turn will not run, each saying why, so the
 * conversation stays one that both APIs accept on every later request.
 */
export function notRunResults(calls: ToolCall[], reason: string): ToolResultMessage[] {
  return calls.map((call) => ({
    role: 'tool',
    toolCallId: call.id,
    toolName: call.name,
    content: `Error: not run: ${reason}`,
    isError: true,
  }));
}

/**
 * The points a conversation can be cut at and still keep the invariant: each
 * number N means "the first N messages", and none leaves a tool round open.
 */
export function pairedCutPoints(messages: Message[]): number[] {
  const points: number[] = [];
  let open = 0;
  messages.forEach((message, index) => {
    if (message.role === 'tool') open = Math.max(0, open - 1);
    else if (message.role === 'assistant') open = message.toolCalls.length;
    if (open === 0) points.push(index + 1);
  });
  return points;
}
