import type { ChatCompletionContentPart, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { AttachmentPart } from '../../core/attachments';
import type { Message } from '../../core/messages';
import { attachmentKind, attachmentText, dataUrl, omittedText, toolAttachmentsIntro } from '../attachment-parts';

/**
 * Neutral messages → OpenAI Chat Completions messages. One neutral message maps to one OpenAI message, but for the
 * images and files tools returned: a `tool` message takes text only (the API refuses an image there), so they follow
 * the round's tool messages in one user message, each introduced by the call it came from.
 */
export function toOpenAIMessages(messages: Message[]): ChatCompletionMessageParam[] {
  const result: ChatCompletionMessageParam[] = [];
  let fromTools: ChatCompletionContentPart[] = [];
  for (const message of messages) {
    if (message.role !== 'tool' && fromTools.length > 0) {
      result.push({ role: 'user', content: fromTools });
      fromTools = [];
    }
    result.push(toOpenAIMessage(message));
    if (message.role === 'tool' && message.attachments?.length) {
      fromTools.push({ type: 'text', text: toolAttachmentsIntro(message) }, ...message.attachments.map(chatPart));
    }
  }
  if (fromTools.length > 0) result.push({ role: 'user', content: fromTools });
  return result;
}

function toOpenAIMessage(message: Message): ChatCompletionMessageParam {
  {
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'user':
        return message.attachments?.length
          ? { role: 'user', content: [{ type: 'text', text: message.content }, ...message.attachments.map(chatPart)] }
          : { role: 'user', content: message.content };
      case 'assistant':
        return {
          role: 'assistant',
          // null is accepted only alongside tool calls; an empty reply without them is sent as ''.
          content: message.content || (message.toolCalls.length > 0 ? null : ''),
          ...(message.toolCalls.length > 0 && {
            tool_calls: message.toolCalls.map((call) => ({
              id: call.id,
              type: 'function' as const,
              function: { name: call.name, arguments: call.arguments },
            })),
          }),
        };
      case 'tool':
        return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
      default: {
        const exhaustive: never = message;
        throw new Error(`unknown message ${JSON.stringify(exhaustive)}`);
      }
    }
  }
}

/** An attachment as a Chat Completions content part: an image as a data URL, a PDF as a file, a text file as text. */
function chatPart(part: AttachmentPart): ChatCompletionContentPart {
  switch (attachmentKind(part)) {
    case 'image':
      return { type: 'image_url', image_url: { url: dataUrl(part) } };
    case 'document':
      return { type: 'file', file: { filename: part.name ?? 'attachment.pdf', file_data: dataUrl(part) } };
    case 'text':
      return { type: 'text', text: attachmentText(part) };
    case 'omitted':
      return { type: 'text', text: omittedText(part) };
  }
}
