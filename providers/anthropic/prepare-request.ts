import type Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
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
    input_schema: tool.parameters as Anthropic.Tool.InputSchema,
  }));
  const used = toolNamesUsed(messages);
  const offered = new Set(tools.map((tool) => tool.name));
  const mustDefine = used.size > 0;
  if (mustDefine) {
    for (const name of used) {
      if (!offered.has(name)) tools.push({ name, description: `${name} (no longer available)`, input_schema: { type: 'object' } });
    }
  }
  if (request.output) {
    // Anthropic has no JSON mode: the final answer is the input of a tool the model must call to finish. While it
    // works it may call the agent's other tools (tool_choice any); the provider turns that call back into the answer.
    tools.push({ name: finalOutputToolName, description: finalOutputDescription, input_schema: request.output.schema as Anthropic.Tool.InputSchema });
    return { ...base(request, prompt.system, messages), tools, tool_choice: { type: 'any' } };
  }
  const definesTools = tools.length > 0 && (request.toolChoice === 'auto' || mustDefine);
  return {
    ...base(request, prompt.system, messages),
    ...(definesTools && { tools }),
    ...(definesTools && (request.toolChoice === 'none' || request.tools.length === 0) && { tool_choice: { type: 'none' as const } }),
  };
}

/** The tool whose input is the final answer when an agent has an outputSchema (reserved: no registered tool may take the name). */
export const finalOutputToolName = 'final_output';
const finalOutputDescription = 'Give your final answer, in the required format. Call this once you are done; it ends your work.';

function base(request: ProviderRequest, system: string | undefined, messages: MessageParam[]): MessageCreateParamsNonStreaming {
  return {
    model: request.model,
    max_tokens: request.maxOutputTokens ?? defaultMaxOutputTokens,
    messages,
    ...(request.temperature !== undefined && { temperature: request.temperature }),
    ...(system !== undefined && { system }),
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
