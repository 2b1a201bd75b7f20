import type { Message } from '../core/messages';

/** The conversation as a person reads it, one block per message, numbered from 1 (the numbers `agent fork --at` takes). */
export function renderConversation(messages: Message[]): string {
  return messages.map((message, index) => `#${index + 1} ${renderMessage(message)}`).join('\n\n');
}

function renderMessage(message: Message): string {
  switch (message.role) {
    case 'system':
      return `[system]\n${message.content}`;
    case 'user':
      return `[user]\n${message.content}`;
    case 'assistant': {
      const calls = message.toolCalls.map((call) => `→ ${call.name} ${call.arguments} (${call.id})`);
      return ['[assistant]', message.content, ...calls].filter(Boolean).join('\n');
    }
    case 'tool':
      return `[tool ${message.toolName} ${message.toolCallId}${message.isError ? ' error' : ''}]\n${message.content}`;
    default: {
      const exhaustive: never = message;
      return JSON.stringify(exhaustive);
    }
  }
}
