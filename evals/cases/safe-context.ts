import type { AssistantMessage, Message, ToolCall, ToolResultMessage } from '../../core/messages';
import { notRunResults } from '../../core/tool-pairing';

/**
 * A recorded conversation made into one every provider accepts as a case's context, whatever the recording holds
 * (a history file is anyone's to edit; a model wrote much of it). Deterministic, so a case is the same every time:
 * - every tool call gets a fresh id (`ctx_<n>`), its results follow it under that id, in the order the calls were
 *   made (two calls of one reply under one id each get one result); a result that answers no open call is dropped,
 *   and a call left without one gets a "not run" result: the pairing rule (core/tool-pairing.ts) holds;
 * - a tool name outside the providers' pattern (`^[a-zA-Z0-9_-]{1,64}$`) is rewritten into it;
 * - thinking is dropped: a signature is proof only to the provider that made it, and a context always ends at a
 *   turn's end, where no provider needs earlier thinking back;
 * - messages with nothing in them (blank user text, an assistant reply with neither text nor calls) are dropped,
 *   and an error result with no text says so.
 */
export function safeContext(messages: Message[]): Message[] {
  const safe: Message[] = [];
  let nextId = 1;
  // The open round: for each recorded id, the fresh ids of its calls still waiting for a result, in order.
  let open = new Map<string, ToolCall[]>();
  const closeRound = () => {
    for (const calls of open.values()) safe.push(...notRunResults(calls, 'the recording holds no result for this call'));
    open = new Map();
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      const waiting = open.get(message.toolCallId);
      const call = waiting?.shift();
      if (!call) continue;
      if (waiting!.length === 0) open.delete(message.toolCallId);
      safe.push(resultFor(call, message));
      continue;
    }
    closeRound();
    if (message.role === 'system') safe.push({ role: 'system', content: message.content });
    else if (message.role === 'user') {
      if (message.content.trim()) safe.push({ role: 'user', content: message.content });
    } else {
      const toolCalls = message.toolCalls.map((call) => {
        const fresh = { id: `ctx_${nextId++}`, name: safeToolName(call.name), arguments: call.arguments };
        open.set(call.id, [...(open.get(call.id) ?? []), fresh]);
        return fresh;
      });
      if (message.content.trim() || toolCalls.length > 0) safe.push(assistant(message.content, toolCalls));
    }
  }
  closeRound();
  return safe;
}

function assistant(content: string, toolCalls: ToolCall[]): AssistantMessage {
  return { role: 'assistant', content, toolCalls };
}

function resultFor(call: ToolCall, recorded: ToolResultMessage): ToolResultMessage {
  const content = recorded.isError && !recorded.content.trim() ? 'Error: (no message)' : recorded.content;
  return { role: 'tool', toolCallId: call.id, toolName: call.name, content, isError: recorded.isError };
}

/** A name the providers accept for a tool: characters outside `[a-zA-Z0-9_-]` become `_`, at most 64 of them. */
export function safeToolName(name: string): string {
  const safe = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return safe || 'unnamed_tool';
}
