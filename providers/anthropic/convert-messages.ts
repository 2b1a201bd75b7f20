import type { ContentBlockParam, MessageParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { Message, ReasoningPart } from '../../core/messages';
import { replyParts, type ReplyPart } from '../../core/reply-parts';
import type { AttachmentPart } from '../../core/attachments';
import { attachmentData, attachmentKind, attachmentText, omittedText } from '../attachment-parts';

export interface AnthropicPrompt {
  system: string | undefined;
  messages: MessageParam[];
}

// Anthropic refuses a tool_result marked is_error with empty content, and text blocks that are empty or blank.
const emptyToolOutput = '(no output)';

const noThinking = () => false;

/**
 * Neutral messages → Anthropic Messages. System messages go to the top-level
 * `system`; consecutive assistant content and tool calls form one assistant
 * message, and consecutive tool results (and any user text after them) form one
 * user message, as Anthropic requires strictly alternating roles. Blank text is
 * left out, and a message left with no content disappears, its neighbours merging.
 * The thinking `keepThinking` accepts goes back as it came, signature and all, in
 * its original place among the reply's blocks; other thinking is left out.
 */
export function toAnthropicPrompt(
  messages: Message[],
  keepThinking: (part: ReasoningPart) => boolean = noThinking,
): AnthropicPrompt {
  const system: string[] = [];
  const result: MessageParam[] = [];
  const append = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = result[result.length - 1];
    if (last?.role === role && Array.isArray(last.content)) {
      last.content.push(...blocks);
    } else {
      result.push({ role, content: blocks });
    }
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        if (message.content.trim()) system.push(message.content);
        break;
      case 'user':
        // Images and documents before the text that asks about them, as Anthropic's guide advises.
        append('user', [...(message.attachments ?? []).map(anthropicBlock), ...textBlocks(message.content)]);
        break;
      case 'assistant': {
        const blocks = replyParts(message, keepThinking).flatMap(assistantBlocks);
        // A reply of thinking alone (an empty answer) says nothing to send back: it is left out like an empty one.
        if (blocks.some((block) => block.type !== 'thinking' && block.type !== 'redacted_thinking')) append('assistant', blocks);
        break;
      }
      case 'tool': {
        const block: ToolResultBlockParam = {
          type: 'tool_result',
          tool_use_id: message.toolCallId,
          // Anthropic takes images and documents inside a tool_result, after its text.
          content: message.attachments?.length
            ? [{ type: 'text', text: message.content || emptyToolOutput }, ...message.attachments.map(toolResultBlock)]
            : message.content || emptyToolOutput,
          ...(message.isError && { is_error: true }),
        };
        append('user', [block]);
        break;
      }
      default: {
        const exhaustive: never = message;
        throw new Error(`unknown message ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages: result };
}

function assistantBlocks(part: ReplyPart): ContentBlockParam[] {
  switch (part.type) {
    case 'text':
      return textBlocks(part.text);
    case 'tool_call':
      return [{ type: 'tool_use', id: part.call.id, name: part.call.name, input: parseArgumentsForReplay(part.call.arguments) }];
    case 'thinking':
      // A thinking block is only valid with the signature it came with.
      return part.signature === undefined ? [] : [{ type: 'thinking', thinking: part.text, signature: part.signature }];
    case 'redacted_thinking':
      return [{ type: 'redacted_thinking', data: part.data }];
    default: {
      const exhaustive: never = part;
      throw new Error(`unknown reply part ${JSON.stringify(exhaustive)}`);
    }
  }
}

function textBlocks(text: string): ContentBlockParam[] {
  return text.trim() ? [{ type: 'text', text }] : [];
}

// Anthropic wants tool_use input as an object. Arguments that were not valid JSON
// (the tool result already told the model) are sent back wrapped, not dropped.
function parseArgumentsForReplay(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  return { invalid_arguments: text };
}

/** An attachment as an Anthropic block: `image` and `document` with base64 sources, a text file as text. */
function anthropicBlock(part: AttachmentPart): ContentBlockParam {
  switch (attachmentKind(part)) {
    case 'image':
      return {
        type: 'image',
        source: { type: 'base64', media_type: part.mediaType as 'image/png', data: attachmentData(part) },
      };
    case 'document':
      return {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: attachmentData(part) },
        ...(part.name && { title: part.name }),
      };
    case 'text':
      return { type: 'text', text: attachmentText(part) };
    case 'omitted':
      return { type: 'text', text: omittedText(part) };
  }
}

/** An attachment inside a tool_result: the same blocks as a user message's (text, image and document are allowed there). */
function toolResultBlock(part: AttachmentPart): Exclude<ToolResultBlockParam['content'], string | undefined>[number] {
  const block = anthropicBlock(part);
  if (block.type === 'text' || block.type === 'image' || block.type === 'document') return block;
  throw new Error(`an attachment became a ${block.type} block, which a tool_result does not take`);
}
