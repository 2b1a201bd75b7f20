import type { Message, ReasoningPart, ToolCall } from '../core/messages';
import type { PendingApproval } from '../core/result';
import { visible } from '../core/visible-text';
import { replyParts } from '../core/reply-parts';
import { describeAttachment, type AttachmentPart } from '../core/attachments';

export interface RenderOptions {
  /** The model's thinking: left out with a one-line note (the default), printed, or printed dimmed (a terminal). */
  thinking?: 'hidden' | 'shown' | 'dimmed';
}

/** The conversation as a person reads it, one block per message, numbered from 1 (the numbers `agent fork --at` takes). */
export function renderConversation(messages: Message[], options: RenderOptions = {}): string {
  return messages.map((message, index) => `#${index + 1} ${renderMessage(message, options.thinking ?? 'hidden')}`).join('\n\n');
}

function renderMessage(message: Message, thinking: NonNullable<RenderOptions['thinking']>): string {
  switch (message.role) {
    case 'system':
      return `[system]\n${message.content}`;
    case 'user':
      return ['[user]', message.content, ...attachedLines(message.attachments)].join('\n');
    case 'assistant': {
      if (thinking === 'hidden') {
        const calls = message.toolCalls.map(renderCall);
        const note = message.thinking?.length ? '(thought; agent show --thinking prints it)' : '';
        return ['[assistant]', note, message.content, ...calls].filter(Boolean).join('\n');
      }
      const lines = replyParts(message, () => true).map((part) => {
        if (part.type === 'text') return part.text;
        if (part.type === 'tool_call') return renderCall(part.call);
        return thinking === 'dimmed' ? `\x1b[2m${thinkingText(part)}\x1b[22m` : thinkingText(part);
      });
      return ['[assistant]', ...lines].filter(Boolean).join('\n');
    }
    case 'tool': {
      const heading = `[tool ${message.toolName} ${message.toolCallId}${message.isError ? ' error' : ''}]`;
      return [heading, message.content, ...attachedLines(message.attachments)].join('\n');
    }
    default: {
      const exhaustive: never = message;
      return JSON.stringify(exhaustive);
    }
  }
}

// Each attachment by its name, type and size (a user's, or a tool's image): the bytes stay in the store.
function attachedLines(attachments: readonly AttachmentPart[] | undefined): string[] {
  return (attachments ?? []).map((part) => `(attached: ${visible(describeAttachment(part))})`);
}

function thinkingText(part: ReasoningPart): string {
  if (part.type === 'redacted_thinking') return `[thinking, redacted by ${part.provider}]`;
  return part.text.trim() ? `[thinking] ${part.text}` : `[thinking, not shown by ${part.provider}]`;
}

// The model chose every character of a call: shown with the hidden ones escaped, as an approval shows them.
function renderCall(call: ToolCall): string {
  return `→ ${visible(call.name)} ${visible(call.arguments)} (${visible(call.id)})`;
}

/** A call waiting for a person, as the approval prompt shows it: the description built from the real arguments. */
export function renderPendingApproval(request: PendingApproval): string {
  const by = request.agents.length > 1 ? `, asked by ${request.agents.join(' → ')}` : '';
  return `[waiting for approval: call ${request.id}${by}]\n${request.description ?? request.summary}`;
}
