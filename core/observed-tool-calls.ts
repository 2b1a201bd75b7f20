import type { Message } from './messages';
import type { ObservedToolCall } from './eval-types';

/**
 * How much of each tool result an outcome keeps: the report shows what a call got, not the whole file it read. The
 * conversation has the whole; an eval's history holds hundreds of outcomes, so each stays small (evals/workflow/).
 */
export const observedResultChars = 2_000;

/**
 * The tool calls of a conversation from message `from` on, in the order the model asked for them, each with the
 * result linked to it by call id (clipped to `observedResultChars`). Arguments are parsed from the model's JSON text;
 * text that is not JSON is kept as it is. Pure: workflow code reads it (an eval run's result carries its calls).
 */
export function observedToolCalls(messages: readonly Message[], from = 0): ObservedToolCall[] {
  const results = new Map<string, { content: string; isError: boolean }>();
  for (const message of messages.slice(from)) {
    if (message.role === 'tool') results.set(message.toolCallId, { content: message.content, isError: message.isError });
  }
  const calls: ObservedToolCall[] = [];
  for (const message of messages.slice(from)) {
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls) {
      const result = results.get(call.id);
      calls.push({
        name: call.name,
        arguments: parsedArguments(call.arguments),
        ...(result && { result: clipped(result.content), isError: result.isError }),
      });
    }
  }
  return calls;
}

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function clipped(text: string): string {
  return text.length <= observedResultChars ? text : `${text.slice(0, observedResultChars)}… (${text.length} characters)`;
}
