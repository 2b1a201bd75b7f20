/**
 * What the real Anthropic Messages API refuses with 400, in its own words, so
 * the fake server refuses it too. Returns the first problem found, or undefined.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON, checked field by field
export function anthropicMessagesProblem(body: any): string | undefined {
  if (!Number.isInteger(body?.max_tokens) || body.max_tokens < 1) return 'max_tokens: Field required';
  const messages: any[] = body.messages; // eslint-disable-line @typescript-eslint/no-explicit-any
  if (!Array.isArray(messages) || messages.length === 0) return 'messages: at least one message is required';
  const tools: unknown[] | undefined = body.tools;
  const definesTools = Array.isArray(tools) && tools.length > 0;
  if (body.tool_choice !== undefined && !definesTools) return 'tool_choice may only be specified while providing tools.';
  if (messages[0].role !== 'user') return 'messages: first message must use the "user" role';

  let usesToolBlocks = false;
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
      if (block.type === 'text') {
        if (typeof block.text !== 'string' || block.text === '') return 'messages: text content blocks must be non-empty';
        if (!block.text.trim()) return 'messages: text content blocks must contain non-whitespace text';
      }
      if (block.type === 'tool_use' || block.type === 'tool_result') usesToolBlocks = true;
      if (block.type === 'tool_use' && message.role !== 'assistant') return `messages.${index}.content.${position}: tool_use blocks are only allowed in assistant messages`;
      if (block.type === 'tool_result') {
        if (message.role !== 'user') return `messages.${index}.content.${position}: tool_result blocks are only allowed in user messages`;
        if (block.is_error && isEmptyContent(block.content)) {
          return `messages.${index}.content.${position}.tool_result: content cannot be empty if \`is_error\` is true`;
        }
      }
    }
    const problem = pairingProblem(messages, index);
    if (problem) return problem;
  }
  if (usesToolBlocks && !definesTools) return 'Requests which include `tool_use` or `tool_result` blocks must define tools.';
  return undefined;
}

interface Block {
  type: string;
  text?: string;
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
