import type Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { ConfigurationError } from '../../core/errors';
import { producedBy } from '../../core/reply-parts';
import type { ModelSettings } from '../../core/agent-spec';
import type { ProviderRequest } from '../provider-call';
import { withCacheBreakpoints } from './cache-breakpoints';
import { toAnthropicPrompt } from './convert-messages';
import { anthropicSettingsProblem } from './settings-rules';

// Anthropic requires max_tokens on every request.
export const defaultMaxOutputTokens = 4096;

/** The name the built-in provider registers: thinking marked with it (and the request's model) is sent back. */
export const anthropicProviderName = 'anthropic';

// A conversation that begins with the assistant (initial messages given that way) needs a user turn first.
export const conversationStartText = '(The conversation so far follows.)';

/** The beta that lets Claude think between tool calls (interleaved thinking), sent with thinking whenever tools are defined. */
export const interleavedThinkingBeta = 'interleaved-thinking-2025-05-14';

/**
 * Neutral request → Messages API body, applying Anthropic's rules in one place:
 * strictly alternating roles that start with the user, no empty content, and
 * tool definitions whenever the conversation holds tool blocks. A call that
 * must not use tools (a reflection, a summary) still defines them, with
 * `tool_choice: none`; tools the conversation used that are not offered any
 * more are defined by name only, so the request stays valid.
 *
 * With a thinking budget, thinking is enabled with `max_tokens` above the
 * budget, and the model's own thinking blocks (this provider's, this model's)
 * go back unchanged; thinking from any other provider or model is left out. A
 * tool loop that began without thinking (after a handoff from another agent, say)
 * finishes without it, as Anthropic refuses thinking mid-loop then.
 *
 * Prompt caching is on unless `modelSettings.promptCache` is `off`: cache breakpoints on the
 * tools and system prompt and on the conversation (./cache-breakpoints.ts).
 */
export function prepareAnthropicRequest(request: ProviderRequest): MessageCreateParamsNonStreaming {
  // Prompt caching is placed last, on the finished body: it marks blocks, it never changes what they say.
  return withCacheBreakpoints(prepareBody(request), request.modelSettings.promptCache);
}

function prepareBody(request: ProviderRequest): MessageCreateParamsNonStreaming {
  const settings = request.modelSettings;
  // Refused at start for agents and runs (the provider's modelSettingsProblem); a request that breaks the rule anyway
  // fails here in words rather than as Anthropic's 400.
  const settingsProblem = anthropicSettingsProblem(settings);
  if (settingsProblem) throw new ConfigurationError(settingsProblem);
  const ownThinking = producedBy({ provider: anthropicProviderName, model: request.model });
  let thinking = settings.thinkingBudget !== undefined;
  const prompt = toAnthropicPrompt(request.messages, thinking ? ownThinking : undefined);
  let messages = startWithUser(prompt.messages);
  if (thinking && !toolLoopStartsWithThinking(messages)) {
    thinking = false;
    messages = startWithUser(toAnthropicPrompt(request.messages).messages);
  }
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
      if (!offered.has(name))
        tools.push({ name, description: `${name} (no longer available)`, input_schema: { type: 'object' } });
    }
  }
  const body = {
    ...base(request, prompt.system, messages),
    ...(thinking && thinkingSettings(settings, settings.thinkingBudget!)),
  };
  if (request.output) {
    // Anthropic has no JSON mode: the final answer is the input of a tool the model must call to finish. While it
    // works it may call the agent's other tools (tool_choice any); the provider turns that call back into the answer.
    // Thinking may not be combined with a forced tool: then the model is offered the tool and chooses (auto), and an
    // answer given in text instead is checked as JSON all the same.
    tools.push({
      name: finalOutputToolName,
      description: finalOutputDescription,
      input_schema: request.output.schema as Anthropic.Tool.InputSchema,
    });
    return { ...body, tools, ...(!thinking && { tool_choice: { type: 'any' as const } }) };
  }
  const definesTools = tools.length > 0 && (request.toolChoice === 'auto' || mustDefine);
  return {
    ...body,
    ...(definesTools && { tools }),
    ...(definesTools &&
      (request.toolChoice === 'none' || request.tools.length === 0) && { tool_choice: { type: 'none' as const } }),
  };
}

/** The beta headers a prepared body needs: interleaved thinking when it thinks and defines tools. */
export function anthropicBetaHeaders(body: MessageCreateParamsNonStreaming): Record<string, string> {
  return body.thinking?.type === 'enabled' && (body.tools?.length ?? 0) > 0 ? { 'anthropic-beta': interleavedThinkingBeta } : {};
}

/** The tool whose input is the final answer when an agent has an outputSchema (reserved: no registered tool may take the name). */
export const finalOutputToolName = 'final_output';
const finalOutputDescription = 'Give your final answer, in the required format. Call this once you are done; it ends your work.';

function base(request: ProviderRequest, system: string | undefined, messages: MessageParam[]): MessageCreateParamsNonStreaming {
  return {
    model: request.model,
    max_tokens: request.modelSettings.maxOutputTokens ?? defaultMaxOutputTokens,
    messages,
    ...(request.modelSettings.temperature !== undefined && { temperature: request.modelSettings.temperature }),
    ...(system !== undefined && { system }),
  };
}

/**
 * Thinking counts against max_tokens, which must exceed the budget: a
 * maxOutputTokens that does not is taken as the room for the answer after it
 * (the default room when none is set).
 */
function thinkingSettings(
  settings: ModelSettings,
  budget: number,
): Pick<MessageCreateParamsNonStreaming, 'thinking' | 'max_tokens'> {
  const asked = settings.maxOutputTokens;
  return {
    thinking: { type: 'enabled', budget_tokens: budget },
    max_tokens: asked !== undefined && asked > budget ? asked : budget + (asked ?? defaultMaxOutputTokens),
  };
}

/**
 * Anthropic's rule while thinking: in a tool loop in progress (the last message
 * holds tool results), the loop's first assistant message must begin with a
 * thinking block. The loop begins after the last user message without tool results.
 */
export function toolLoopStartsWithThinking(messages: MessageParam[]): boolean {
  const last = messages[messages.length - 1];
  if (last?.role !== 'user' || !hasToolResults(last)) return true;
  let start = messages.length - 1;
  while (start > 0 && !(messages[start - 1].role === 'user' && !hasToolResults(messages[start - 1]))) start--;
  const first = messages.slice(start).find((message) => message.role === 'assistant');
  const firstBlock = first && Array.isArray(first.content) ? first.content[0] : undefined;
  return firstBlock?.type === 'thinking' || firstBlock?.type === 'redacted_thinking';
}

function hasToolResults(message: MessageParam): boolean {
  return Array.isArray(message.content) && message.content.some((block) => block.type === 'tool_result');
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
