import { unseal } from './reasoning-seals';
import { anthropicBlockProblem, anthropicToolResultProblem } from './attachment-parts';

const thinkingDocs = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

/**
 * What the real Anthropic Messages API refuses with 400, in its own words, so
 * the fake server refuses it too. Returns the first problem found, or undefined.
 * `betas` are the request's `anthropic-beta` values.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON, checked field by field
export function anthropicMessagesProblem(body: any, betas: string[] = []): string | undefined {
  if (!Number.isInteger(body?.max_tokens) || body.max_tokens < 1) return 'max_tokens: Field required';
  const thinking = body.thinking?.type === 'enabled';
  if (thinking) {
    const problem = thinkingSettingsProblem(body, betas);
    if (problem) return problem;
  }
  const messages: any[] = body.messages; // eslint-disable-line @typescript-eslint/no-explicit-any
  if (!Array.isArray(messages) || messages.length === 0) return 'messages: at least one message is required';
  const tools: unknown[] | undefined = body.tools;
  const definesTools = Array.isArray(tools) && tools.length > 0;
  if (body.tool_choice !== undefined && !definesTools) return 'tool_choice may only be specified while providing tools.';
  if (messages[0].role !== 'user') return 'messages: first message must use the "user" role';

  let usesToolBlocks = false;
  const toolUseIds = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (message.role !== 'user' && message.role !== 'assistant') {
      return `messages.${index}.role: Input should be 'user' or 'assistant'`;
    }
    if (index > 0 && messages[index - 1].role === message.role) {
      return `messages: roles must alternate between "user" and "assistant", but found multiple "${message.role}" roles in a row`;
    }
    const blocks = contentBlocks(message.content);
    const isFinal = index === messages.length - 1;
    if (blocks.length === 0 && !(isFinal && message.role === 'assistant')) {
      return `messages.${index}: all messages must have non-empty content except for the optional final assistant message`;
    }
    for (const [position, block] of blocks.entries()) {
      const attachmentProblem =
        anthropicBlockProblem(block, index, position, message.role) ?? anthropicToolResultProblem(block, index, position);
      if (attachmentProblem) return attachmentProblem;
      if (block.type === 'text') {
        if (typeof block.text !== 'string' || block.text === '') return 'messages: text content blocks must be non-empty';
        if (!block.text.trim()) return 'messages: text content blocks must contain non-whitespace text';
      }
      if (block.type === 'tool_use' || block.type === 'tool_result') usesToolBlocks = true;
      if (block.type === 'tool_use' && message.role !== 'assistant')
        return `messages.${index}.content.${position}: tool_use blocks are only allowed in assistant messages`;
      if (block.type === 'tool_use') {
        if (typeof block.id !== 'string' || !/^[a-zA-Z0-9_-]+$/.test(block.id)) {
          return `messages.${index}.content.${position}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
        }
        if (toolUseIds.has(block.id)) return `messages.${index}.content.${position}: \`tool_use\` ids must be unique`;
        toolUseIds.add(block.id);
      }
      if (block.type === 'tool_result') {
        if (message.role !== 'user')
          return `messages.${index}.content.${position}: tool_result blocks are only allowed in user messages`;
        if (block.is_error && isEmptyContent(block.content)) {
          return `messages.${index}.content.${position}.tool_result: content cannot be empty if \`is_error\` is true`;
        }
      }
    }
    const problem =
      pairingProblem(messages, index) ?? (message.role === 'assistant' ? reasoningProblem(blocks, index) : undefined);
    if (problem) return problem;
  }
  if (usesToolBlocks && !definesTools) return 'Requests which include `tool_use` or `tool_result` blocks must define tools.';
  if (thinking) return toolLoopThinkingProblem(messages);
  return undefined;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function thinkingSettingsProblem(body: any, betas: string[]): string | undefined {
  const budget = body.thinking.budget_tokens;
  if (!Number.isInteger(budget) || budget < 1024)
    return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
  // Interleaved thinking lets the budget span the whole context window instead of max_tokens.
  if (body.max_tokens <= budget && !betas.includes('interleaved-thinking-2025-05-14')) {
    return `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${thinkingDocs}#max-tokens-and-context-window-size`;
  }
  if (body.temperature !== undefined && body.temperature !== 1) {
    return `\`temperature\` may only be set to 1 when thinking is enabled. Please consult our documentation at ${thinkingDocs}#important-considerations-when-using-extended-thinking`;
  }
  if (body.tool_choice?.type === 'any' || body.tool_choice?.type === 'tool')
    return 'Thinking may not be enabled when tool_choice forces tool use.';
  return undefined;
}

/**
 * Thinking and redacted-thinking blocks must come back exactly as this server
 * gave them: text and signature (or data) unchanged, and each response's
 * blocks all there, in their original order.
 */
function reasoningProblem(blocks: Block[], index: number): string | undefined {
  const expected = new Map<string, number>();
  for (const [position, block] of blocks.entries()) {
    if (block.type !== 'thinking' && block.type !== 'redacted_thinking') continue;
    const seal = block.type === 'thinking' ? unseal(block.signature, block.thinking ?? '') : unseal(block.data, 'redacted');
    const next = seal ? (expected.get(seal.response) ?? 0) : -1;
    if (!seal || seal.index !== next) {
      return block.type === 'thinking'
        ? `messages.${index}.content.${position}: Invalid \`signature\` in \`thinking\` block`
        : `messages.${index}.content.${position}: Invalid \`data\` in \`redacted_thinking\` block`;
    }
    expected.set(seal.response, next + 1);
  }
  return undefined;
}

/**
 * While thinking, a tool loop in progress (the last message holds tool results)
 * must have begun with thinking: its first assistant message starts with a
 * thinking block. The loop begins after the last user message without tool results.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function toolLoopThinkingProblem(messages: any[]): string | undefined {
  const hasResults = (message: { content: unknown }) =>
    contentBlocks(message.content).some((block) => block.type === 'tool_result');
  const last = messages[messages.length - 1];
  if (last.role !== 'user' || !hasResults(last)) return undefined;
  let start = messages.length - 1;
  while (start > 0 && !(messages[start - 1].role === 'user' && !hasResults(messages[start - 1]))) start--;
  const first = messages.findIndex((message, index) => index >= start && message.role === 'assistant');
  const firstType = contentBlocks(messages[first]?.content)[0]?.type;
  if (first < 0 || firstType === 'thinking' || firstType === 'redacted_thinking') return undefined;
  return (
    `messages.${first}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${firstType}\`. ` +
    'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of ' +
    '`tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, ' +
    `disable \`thinking\`. Please consult our documentation at ${thinkingDocs}`
  );
}

interface Block {
  type: string;
  text?: string;
  thinking?: string;
  signature?: string;
  data?: string;
  id?: string;
  tool_use_id?: string;
  is_error?: boolean;
  content?: unknown;
}

function contentBlocks(content: unknown): Block[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as Block[]) : [];
}

function isEmptyContent(content: unknown): boolean {
  return content === undefined || content === '' || (Array.isArray(content) && content.length === 0);
}

/** Each tool_use needs its tool_result in the very next message; each tool_result needs a tool_use in the message before. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function pairingProblem(messages: any[], index: number): string | undefined {
  const blocks = contentBlocks(messages[index].content);
  if (messages[index].role === 'assistant') {
    const uses = blocks.filter((block) => block.type === 'tool_use').map((block) => block.id!);
    if (uses.length === 0) return undefined;
    const next = index + 1 < messages.length ? contentBlocks(messages[index + 1].content) : [];
    const answered = new Set(next.filter((block) => block.type === 'tool_result').map((block) => block.tool_use_id));
    const missing = uses.filter((id) => !answered.has(id));
    if (missing.length > 0) {
      return (
        `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. ` +
        'Each `tool_use` block must have a corresponding `tool_result` block in the next message.'
      );
    }
    return undefined;
  }
  const previous = index > 0 ? contentBlocks(messages[index - 1].content) : [];
  const used = new Set(previous.filter((block) => block.type === 'tool_use').map((block) => block.id));
  // The user message that answers tool_use blocks starts with their tool_result blocks: text (a steering message, say)
  // comes after all of them, never before (Anthropic's tool use docs: "tool_result blocks must come FIRST").
  const firstOther = blocks.findIndex((block) => block.type !== 'tool_result');
  const lastResult = blocks.map((block) => block.type).lastIndexOf('tool_result');
  if (used.size > 0 && firstOther >= 0 && firstOther < lastResult) {
    return (
      `messages.${index - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ` +
      `${[...used].join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`
    );
  }
  for (const [position, block] of blocks.entries()) {
    if (block.type === 'tool_result' && !used.has(block.tool_use_id)) {
      return (
        `messages.${index}.content.${position}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. ` +
        'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.'
      );
    }
  }
  return undefined;
}
