/* eslint-disable @typescript-eslint/no-explicit-any -- wire JSON, checked field by field */

const requestFields = [
  'model',
  'messages',
  'temperature',
  'top_p',
  'max_tokens',
  'stream',
  'stop',
  'random_seed',
  'response_format',
  'tools',
  'tool_choice',
  'presence_penalty',
  'frequency_penalty',
  'n',
  'prediction',
  'parallel_tool_calls',
  'safe_prompt',
  'prompt_mode',
  'reasoning_effort',
  'document_image_limit',
  'document_page_limit',
  'prompt_cache_key',
];
const messageFields: Record<string, string[]> = {
  system: ['role', 'content'],
  user: ['role', 'content'],
  assistant: ['role', 'content', 'tool_calls', 'prefix'],
  tool: ['role', 'content', 'tool_call_id', 'name'],
};
const toolCallId = /^[A-Za-z0-9]{9}$/;

/**
 * What Mistral's Chat Completions API refuses, in its own words: unknown fields (422), and with 400 a tool-call id
 * that is not nine letters and digits, tool results that do not answer the calls before them one for one, and a
 * conversation that does not end with a user or tool message (or an assistant prefix).
 */
export function mistralChatProblem(body: any): { status: number; message: string } | undefined {
  const unknown = Object.keys(body ?? {}).find((key) => !requestFields.includes(key));
  if (unknown) return { status: 422, message: `body.${unknown}: Extra inputs are not permitted` };
  const messages: any[] = body?.messages;
  if (!Array.isArray(messages) || messages.length === 0)
    return { status: 422, message: 'body.messages: List should have at least 1 item after validation, not 0' };
  let open: string[] = [];
  for (const [index, message] of messages.entries()) {
    const field = Object.keys(message).find((key) => !(messageFields[message.role] ?? []).includes(key));
    if (field) return { status: 422, message: `body.messages.${index}.${field}: Extra inputs are not permitted` };
    for (const id of [
      ...(message.tool_calls ?? []).map((call: any) => call.id),
      ...(message.role === 'tool' ? [message.tool_call_id] : []),
    ]) {
      if (!toolCallId.test(id))
        return { status: 400, message: `Tool call id was ${id} but must be a-z, A-Z, 0-9, with a length of 9.` };
    }
    if (message.role === 'tool') {
      if (!open.includes(message.tool_call_id))
        return { status: 400, message: 'Not the same number of function calls and responses' };
      open = open.filter((id) => id !== message.tool_call_id);
      continue;
    }
    if (open.length > 0) return { status: 400, message: 'Not the same number of function calls and responses' };
    if (message.role === 'assistant') open = (message.tool_calls ?? []).map((call: any) => call.id);
  }
  if (open.length > 0) return { status: 400, message: 'Not the same number of function calls and responses' };
  const last = messages[messages.length - 1];
  if (last.role !== 'user' && last.role !== 'tool' && !(last.role === 'assistant' && last.prefix === true))
    return {
      status: 400,
      message: `Expected last role User or Tool (or Assistant with prefix True) for serving but got ${last.role}`,
    };
  return undefined;
}
