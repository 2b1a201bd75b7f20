import type Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { toolJsonSchema } from '../../tools';
import type { ProviderRequest } from '../provider-call';
import { toAnthropicPrompt } from './convert-messages';

// Anthropic requires max_tokens on every request.
export const defaultMaxOutputTokens = 4096;

// A conversation that begins with the assistant (initial messages given that way) needs a user turn first.
export const conversationStartText = '(The conversation so far follows.)';

/**
 * Neutral request → Messages API body, applying Anthropic's rules in one place:
 * strictly alternating roles that start with the user, no empty content, and
 * tool definitions whenever the conversation holds tool blocks. A call that
 * must not use tools (a reflection, a summary) still defines them, with
 * `tool_choice: none`; tools the conversation used that are not offered any
 * more are defined by name only, so the request stays valid.
 */
export function prepareAnthropicRequest(request: ProviderRequest): MessageCreateParamsNonStreaming {
  const prompt = toAnthropicPrompt(request.messages);
  const messages = startWithUser(prompt.messages);
  const tools: Anthropic.Tool[] = request.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: toolJsonSchema(tool) as Anthropic.Tool.InputSchema,
  }));
  const used = toolNamesUsed(messages);
  const offered = new Set(tools.map((tool) => tool.name));
  const mustDefine = used.size > 0;
  if (mustDefine) {
    for (const name of used) {
      if (!offered.has(name)) tools.push({ name, description: `${name} (no longer available)`, input_schema: { type: 'object' } });
    }
  }
  const definesTools = tools.length > 0 && (request.toolChoice === 'auto' || mustDefine);
  return {
    model: request.model,
    max_tokens: request.maxOutputTokens ?? defaultMaxOutputTokens,
    messages,
    ...(prompt.system !== undefined && { system: prompt.system }),
    ...(definesTools && { tools }),
    ...(definesTools && (request.toolChoice === 'none' || request.tools.length === 0) && { tool_choice: { type: 'none' as const } }),
  };
}

function startWithUser(messages: MessageParam[]): MessageParam[] {
  if (messages[0]?.role !== 'assistant') return messages;
  return [{ role: 'user', content: [{ type: 'text', text: conversationStartText }] }, ...messages];
}

function toolNamesUsed(messages: MessageParam[]): Set<string> {
  const names = new Set<string>();
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) if (block.type === 'tool_use') names.add(block.name);
  }
  // A tool_result without its tool_use cannot occur (the pairing invariant), so tool_use names are all there are.
  return names;
}
