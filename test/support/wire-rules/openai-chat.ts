import { openaiChatPartProblem } from './attachment-parts';

// The fields a message of each role may have; anything else (a `reasoning_content` sent back, say) is refused.
const allowedFields: Record<string, string[]> = {
  system: ['role', 'content', 'name'],
  developer: ['role', 'content', 'name'],
  user: ['role', 'content', 'name'],
  assistant: ['role', 'content', 'name', 'tool_calls', 'refusal', 'audio', 'function_call'],
  tool: ['role', 'content', 'tool_call_id'],
};

/**
 * What the real OpenAI Chat Completions API refuses with 400, in its own words,
 * so the fake server refuses it too. Returns the first problem found, or undefined.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON, checked field by field
export function openaiChatProblem(body: any): string | undefined {
  const messages: any[] = body?.messages; // eslint-disable-line @typescript-eslint/no-explicit-any
  if (!Array.isArray(messages) || messages.length === 0) {
    return "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.";
  }
  if (body.stream_options !== undefined && body.stream !== true) {
    return "The 'stream_options' parameter is only allowed when 'stream' is enabled.";
  }
  const tools: unknown[] | undefined = body.tools;
  if (body.tool_choice !== undefined && (!Array.isArray(tools) || tools.length === 0)) {
    return "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.";
  }
  for (const [index, tool] of (tools ?? []).entries()) {
    const name = (tool as { function?: { name?: unknown } }).function?.name;
    if (typeof name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
      return `Invalid 'tools[${index}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`;
    }
  }
  let open: string[] = [];
  for (const [index, message] of messages.entries()) {
    const unexpected = Object.keys(message).find((key) => !(allowedFields[message.role] ?? allowedFields.user).includes(key));
    if (unexpected) return `Additional properties are not allowed ('${unexpected}' was unexpected) - 'messages.${index}'`;
    const partProblem = openaiChatPartProblem(message, index);
    if (partProblem) return partProblem;
    if (message.role === 'tool') {
      const position = open.indexOf(message.tool_call_id);
      if (position < 0)
        return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      open.splice(position, 1);
      continue;
    }
    if (open.length > 0) {
      return (
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
        `The following tool_call_ids did not have response messages: ${open.join(', ')}`
      );
    }
    if (message.role === 'assistant') {
      const calls: Array<{ id: string }> = message.tool_calls ?? [];
      if (calls.length === 0 && (message.content === null || message.content === undefined)) {
        return `Invalid value for 'content': expected a string, got null. (messages.[${index}].content)`;
      }
      open = calls.map((call) => call.id);
    } else if (!['system', 'developer', 'user'].includes(message.role)) {
      return `Invalid value: '${String(message.role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'. (messages.[${index}].role)`;
    }
  }
  if (open.length > 0) {
    return (
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
      `The following tool_call_ids did not have response messages: ${open.join(', ')}`
    );
  }
  return undefined;
}
