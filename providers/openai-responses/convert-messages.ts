import type { ResponseInputContent, ResponseInputItem } from 'openai/resources/responses/responses';
import type { AssistantMessage, Message, ReasoningPart } from '../../core/messages';
import { replyParts, type ReplyPart } from '../../core/reply-parts';
import type { AttachmentPart } from '../../core/attachments';
import { attachmentKind, attachmentText, dataUrl, omittedText } from '../attachment-parts';

const noThinking = () => false;

/**
 * Neutral messages → Responses API input items. A reply becomes its items in
 * the order they came: reasoning items (the encrypted content and id untouched;
 * only those `keepThinking` accepts), the assistant's text, and a function_call
 * per tool call; each tool result is a function_call_output with the call's call_id.
 */
export function toResponsesInput(
  messages: Message[],
  keepThinking: (part: ReasoningPart) => boolean = noThinking,
): ResponseInputItem[] {
  return messages.flatMap((message): ResponseInputItem[] => {
    switch (message.role) {
      case 'system':
        return [{ role: message.role, content: message.content }];
      case 'user':
        return message.attachments?.length
          ? [
              {
                role: 'user',
                content: [{ type: 'input_text', text: message.content }, ...message.attachments.map(responsesPart)],
              },
            ]
          : [{ role: message.role, content: message.content }];
      case 'assistant':
        return replyItems(message, keepThinking);
      case 'tool':
        // The Responses API takes images and files in a function_call_output (its output as a list of input parts).
        return [
          {
            type: 'function_call_output',
            call_id: message.toolCallId,
            output: message.attachments?.length
              ? [{ type: 'input_text', text: message.content }, ...message.attachments.map(responsesPart)]
              : message.content,
          },
        ];
      default: {
        const exhaustive: never = message;
        throw new Error(`unknown message ${JSON.stringify(exhaustive)}`);
      }
    }
  });
}

function replyItems(message: AssistantMessage, keepThinking: (part: ReasoningPart) => boolean): ResponseInputItem[] {
  const items = replyParts(message, keepThinking).flatMap((part: ReplyPart): ResponseInputItem[] => {
    switch (part.type) {
      case 'text':
        return part.text.trim() ? [{ role: 'assistant', content: part.text }] : [];
      case 'tool_call':
        return [{ type: 'function_call', call_id: part.call.id, name: part.call.name, arguments: part.call.arguments }];
      case 'thinking':
        // With nothing stored server-side, a reasoning item can only go back with its encrypted content.
        if (part.id === undefined || part.signature === undefined) return [];
        return [
          {
            type: 'reasoning',
            id: part.id,
            summary: part.text ? [{ type: 'summary_text', text: part.text }] : [],
            encrypted_content: part.signature,
          },
        ];
      case 'redacted_thinking':
        return [];
      default: {
        const exhaustive: never = part;
        throw new Error(`unknown reply part ${JSON.stringify(exhaustive)}`);
      }
    }
  });
  return withoutDanglingReasoning(items);
}

/**
 * A reasoning item is accepted only with the item that followed it (the
 * assistant's message or a function call): reasoning left with nothing after it
 * (an empty reply, say) is left out.
 */
function withoutDanglingReasoning(items: ResponseInputItem[]): ResponseInputItem[] {
  const kept: ResponseInputItem[] = [];
  let pending: ResponseInputItem[] = [];
  for (const item of items) {
    if ('type' in item && item.type === 'reasoning') {
      pending.push(item);
    } else {
      kept.push(...pending, item);
      pending = [];
    }
  }
  return kept;
}

/** An attachment as a Responses input part: `input_image` and `input_file` with data URLs, a text file as `input_text`. */
function responsesPart(part: AttachmentPart): ResponseInputContent {
  switch (attachmentKind(part)) {
    case 'image':
      return { type: 'input_image', image_url: dataUrl(part), detail: 'auto' };
    case 'document':
      return { type: 'input_file', filename: part.name ?? 'attachment.pdf', file_data: dataUrl(part) };
    case 'text':
      return { type: 'input_text', text: attachmentText(part) };
    case 'omitted':
      return { type: 'input_text', text: omittedText(part) };
  }
}
