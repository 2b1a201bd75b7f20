import type { Message, ReasoningPart } from '../core/messages';
import { replyParts } from '../core/reply-parts';

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
      return `[user]\n${message.content}`;
    case 'assistant': {
      if (thinking === 'hidden') {
        const calls = message.toolCalls.map((call) => `→ ${call.name} ${call.arguments} (${call.id})`);
        const note = message.thinking?.length ? '(thought; agent show --thinking prints it)' : '';
        return ['[assistant]', note, message.content, ...calls].filter(Boolean).join('\n');
      }
      const lines = replyParts(message, () => true).map((part) => {
        if (part.type === 'text') return part.text;
        if (part.type === 'tool_call') return `→ ${part.call.name} ${part.call.arguments} (${part.call.id})`;
        return thinking === 'dimmed' ? `\x1b[2m${thinkingText(part)}\x1b[22m` : thinkingText(part);
      });
      return ['[assistant]', ...lines].filter(Boolean).join('\n');
    }
    case 'tool':
      return `[tool ${message.toolName} ${message.toolCallId}${message.isError ? ' error' : ''}]\n${message.content}`;
    default: {
      const exhaustive: never = message;
      return JSON.stringify(exhaustive);
    }
  }
}

function thinkingText(part: ReasoningPart): string {
  if (part.type === 'redacted_thinking') return `[thinking, redacted by ${part.provider}]`;
  return part.text.trim() ? `[thinking] ${part.text}` : `[thinking, not shown by ${part.provider}]`;
}
