import type { AttachmentPart } from '../core/attachments';
import type { Message } from '../core/messages';
import { assistantMessageId, steeredMessageId } from './ui-message-chunks';

/** A UIMessage of the AI SDK (`ai`'s type), as much of it as a conversation read back has. */
export interface ConversationUiMessage {
  id: string;
  role: 'user' | 'assistant';
  parts: ConversationUiPart[];
}

export type ConversationUiPart =
  | { type: 'step-start' }
  | { type: 'text'; text: string; state: 'done' }
  /** An image or file the message carries: `url` is where the page reads its bytes (web/attachment-bytes.ts). */
  | {
      type: 'file';
      mediaType: string;
      filename?: string;
      url: string;
      providerMetadata: { durableAgent: { size: number } };
    }
  | { type: 'reasoning'; text: string; state: 'done' }
  | {
      type: `tool-${string}`;
      toolCallId: string;
      state: 'output-available' | 'output-error' | 'input-available';
      input: unknown;
      output?: unknown;
      errorText?: string;
    };

/**
 * The session's conversation as useChat's messages, to show after a reload: each user message, then one assistant
 * message per turn (one step per model reply, its tool calls as tool parts with their results), with the same ids
 * the live stream gives (`turn-N`), so a resumed turn replaces its message instead of adding a second one. A
 * steering message is a user message inside its turn: the turn's answer goes on after it in a message of its own,
 * with the id a steering message's response gives it (`turn-N-steered-I`, after I model calls). A user message's
 * attachments come first, as `file` parts (useChat puts a message's files before its text too), each at the URL
 * `fileUrl` gives it, with its size in `providerMetadata.durableAgent` (a UIMessage file part has no field for it);
 * without `fileUrl` they are left out.
 */
export function toUiMessages(conversation: Message[], fileUrl?: (part: AttachmentPart) => string): ConversationUiMessage[] {
  const messages: ConversationUiMessage[] = [];
  let turn = 0;
  /** Model calls of the turn so far, and where the answer goes on after steering messages (their count then). */
  let calls = 0;
  let steeredAt: number | undefined;
  let steerings = 0;
  let answer: ConversationUiMessage | undefined;
  const tools = new Map<string, Extract<ConversationUiPart, { toolCallId: string }>>();
  for (const message of conversation) {
    if (message.role === 'system') continue;
    if (message.role === 'user') {
      const files: ConversationUiPart[] = fileUrl
        ? (message.attachments ?? []).map((part) => ({
            type: 'file',
            mediaType: part.mediaType,
            ...(part.name !== undefined && { filename: part.name }),
            url: fileUrl(part),
            providerMetadata: { durableAgent: { size: part.size } },
          }))
        : [];
      const text: ConversationUiPart[] = [...files, { type: 'text', text: message.content, state: 'done' }];
      answer = undefined;
      if (message.steering && turn > 0) {
        steeredAt = calls;
        messages.push({ id: `user-${turn}-steering-${++steerings}`, role: 'user', parts: text });
        continue;
      }
      turn++;
      calls = 0;
      steeredAt = undefined;
      steerings = 0;
      messages.push({ id: `user-${turn}`, role: 'user', parts: text });
      continue;
    }
    if (!answer) {
      const id = steeredAt === undefined ? assistantMessageId(Math.max(turn, 1)) : steeredMessageId(turn, steeredAt);
      answer = { id, role: 'assistant', parts: [] };
      messages.push(answer);
    }
    if (message.role === 'assistant') {
      calls++;
      answer.parts.push({ type: 'step-start' });
      for (const thinking of message.thinking ?? []) {
        if (thinking.type === 'thinking') answer.parts.push({ type: 'reasoning', text: thinking.text, state: 'done' });
      }
      if (message.content) answer.parts.push({ type: 'text', text: message.content, state: 'done' });
      for (const call of message.toolCalls) {
        const part = {
          type: `tool-${call.name}` as const,
          toolCallId: call.id,
          state: 'input-available' as const,
          input: parseArguments(call.arguments),
        };
        tools.set(call.id, part);
        answer.parts.push(part);
      }
      continue;
    }
    const part = tools.get(message.toolCallId);
    if (!part) continue;
    if (message.isError) Object.assign(part, { state: 'output-error', errorText: message.content });
    else Object.assign(part, { state: 'output-available', output: message.content });
  }
  return messages;
}

/** The arguments as the model wrote them: JSON when they parse, else the text itself. */
function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
