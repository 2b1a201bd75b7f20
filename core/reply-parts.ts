import type { AssistantMessage, ReasoningPart, ToolCall } from './messages';

/**
 * A reply as a provider gives it: text, tool calls and thinking, in order. The
 * neutral message keeps the text and the tool calls in their own fields (what
 * the loop reads) and each thinking part with its position among them, so a
 * provider can send the reply back exactly in the order it came.
 */
export type ReplyPart = { type: 'text'; text: string } | { type: 'tool_call'; call: ToolCall } | ReasoningPart;

/** The parts of a reply, in the provider's order → the neutral assistant message. */
export function assistantMessageFromParts(parts: ReplyPart[]): AssistantMessage {
  let content = '';
  const toolCalls: ToolCall[] = [];
  const thinking: ReasoningPart[] = [];
  for (const part of parts) {
    if (part.type === 'text') content += part.text;
    else if (part.type === 'tool_call') toolCalls.push(part.call);
    else {
      const { at: _ignored, ...rest } = part;
      const atStart = content.length === 0 && toolCalls.length === 0;
      thinking.push(atStart ? rest : { ...rest, at: { text: content.length, toolCalls: toolCalls.length } });
    }
  }
  return { role: 'assistant', content, toolCalls, ...(thinking.length > 0 && { thinking }) };
}

/**
 * A neutral assistant message → its parts in the order the provider gave them,
 * with only the thinking `keep` accepts (the rest is dropped; the text around it
 * joins up again). Text between two parts comes before the tool calls between them.
 */
export function replyParts(message: AssistantMessage, keep: (part: ReasoningPart) => boolean): ReplyPart[] {
  const parts: ReplyPart[] = [];
  let textCursor = 0;
  let callCursor = 0;
  const flushUpTo = (text: number, calls: number) => {
    const until = Math.min(Math.max(text, textCursor), message.content.length);
    if (until > textCursor) pushText(parts, message.content.slice(textCursor, until));
    textCursor = until;
    const callsUntil = Math.min(Math.max(calls, callCursor), message.toolCalls.length);
    for (; callCursor < callsUntil; callCursor++) parts.push({ type: 'tool_call', call: message.toolCalls[callCursor] });
  };
  for (const part of message.thinking ?? []) {
    flushUpTo(part.at?.text ?? 0, part.at?.toolCalls ?? 0);
    if (keep(part)) {
      const { at: _ignored, ...rest } = part;
      parts.push(rest);
    }
  }
  flushUpTo(message.content.length, message.toolCalls.length);
  return parts;
}

function pushText(parts: ReplyPart[], text: string): void {
  const last = parts[parts.length - 1];
  if (last?.type === 'text') last.text += text;
  else parts.push({ type: 'text', text });
}

/** Thinking a provider may be sent back: its own, from the same model (a signature or encrypted payload is bound to both). */
export function producedBy(source: { provider: string; model: string }): (part: ReasoningPart) => boolean {
  return (part) => part.provider === source.provider && part.model === source.model;
}
