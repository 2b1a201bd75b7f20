import type { ContentBlockParam, MessageParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { Message } from '../../core/messages';

export interface AnthropicPrompt {
  system: string | undefined;
  messages: MessageParam[];
}

// Anthropic refuses a tool_result marked is_error with empty content, and text blocks that are empty or blank.
const emptyToolOutput = '(no output)';

/**
 * Neutral messages → Anthropic Messages. System messages go to the top-level
 * `system`; consecutive assistant content and tool calls form one assistant
 * message, and consecutive tool results (and any user text after them) form one
 * user message, as Anthropic requires strictly alternating roles. Blank text is
 * left out, and a message left with no content disappears, its neighbours merging.
 */
export function toAnthropicPrompt(messages: Message[]): AnthropicPrompt {
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
        append('user', textBlocks(message.content));
        break;
      case 'assistant':
        append('assistant', [
          ...textBlocks(message.content),
          ...message.toolCalls.map((call) => ({
            type: 'tool_use' as const,
            id: call.id,
            name: call.name,
            input: parseArgumentsForReplay(call.arguments),
          })),
        ]);
        break;
      case 'tool': {
        const block: ToolResultBlockParam = {
          type: 'tool_result',
          tool_use_id: message.toolCallId,
          content: message.content || emptyToolOutput,
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
