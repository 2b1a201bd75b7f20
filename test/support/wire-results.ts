import type { ReceivedRequest } from './fake-model-server';

/**
 * The tool results a request carried, read off the wire in whichever API it
 * spoke (Chat Completions, Responses, Anthropic Messages): call id and text.
 */
export function toolResultsSent(request: ReceivedRequest): Array<{ id: string; content: string }> {
  const body = request.body;
  if (request.path.includes('/responses')) {
    return body.input
      .filter((item: { type?: string }) => item.type === 'function_call_output')
      .map((item: { call_id: string; output: string }) => ({ id: item.call_id, content: item.output }));
  }
  if (request.path.includes('/chat/completions')) {
    return body.messages
      .filter((message: { role: string }) => message.role === 'tool')
      .map((message: { tool_call_id: string; content: string }) => ({ id: message.tool_call_id, content: message.content }));
  }
  return body.messages.flatMap((message: { content: unknown }) =>
    Array.isArray(message.content)
      ? message.content
          .filter((block: { type: string }) => block.type === 'tool_result')
          .map((block: { tool_use_id: string; content: string }) => ({ id: block.tool_use_id, content: block.content }))
      : [],
  );
}
