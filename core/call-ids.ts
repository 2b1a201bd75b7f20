import type { AssistantMessage, Message } from './messages';

/**
 * Tool-call ids come from the model, or from whatever OpenAI-compatible server or
 * proxy a user points at: they may repeat, be empty, or carry characters that
 * mean something to us (`/` separates a subagent's calls in approval ids and
 * child workflow ids). Everything downstream (approvals, the pairing of results,
 * activities, child workflows) keys on them, so a reply's ids are made unique
 * once, here, before anything else sees the reply. An id is kept when it is
 * well-formed and new to the conversation; any other is replaced by one that
 * is, and since the reply is stored with the new ids, every later request
 * sends the model the renamed calls with their results under the same ids.
 */

// Anthropic accepts tool_use ids of this form; OpenAI caps ids at 40 characters. An id outside it is replaced.
const wellFormedId = /^[A-Za-z0-9_-]{1,40}$/;

/** The reply with every tool call's id unique across `conversation` and the reply itself, and well-formed. */
export function withUniqueCallIds(message: AssistantMessage, conversation: Message[]): AssistantMessage {
  if (message.toolCalls.length === 0) return message;
  const taken = new Set<string>();
  for (const earlier of conversation) {
    if (earlier.role === 'assistant') for (const call of earlier.toolCalls) taken.add(call.id);
    else if (earlier.role === 'tool') taken.add(earlier.toolCallId);
  }
  let renamed = false;
  const toolCalls = message.toolCalls.map((call, index) => {
    if (wellFormedId.test(call.id) && !taken.has(call.id)) {
      taken.add(call.id);
      return call;
    }
    renamed = true;
    const id = freshId(taken, conversation.length, index);
    taken.add(id);
    return { ...call, id };
  });
  return renamed ? { ...message, toolCalls } : message;
}

/** `call_m12_3`: the reply's place in the conversation and the call's in the reply, suffixed until unused. */
function freshId(taken: Set<string>, replyIndex: number, callIndex: number): string {
  const base = `call_m${replyIndex}_${callIndex}`;
  let id = base;
  for (let suffix = 1; taken.has(id); suffix++) id = `${base}_${suffix}`;
  return id;
}
