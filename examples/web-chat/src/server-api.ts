import type { UIMessage } from 'ai';

/**
 * The chat handler's routes besides the two useChat calls itself (POST /api/chat, GET /api/chat/:id/stream): the
 * conversation so far, to restore the page after a reload, and stop, since useChat's stop() only aborts the fetch (a
 * reload does that too) and the turn must be interrupted on the server.
 */
export const chatApi = '/api/chat';

export type Conversation = { found: true; messages: UIMessage[]; turnInProgress: boolean } | { found: false };

export async function loadConversation(id: string): Promise<Conversation> {
  const response = await fetch(`${chatApi}/${encodeURIComponent(id)}`, { headers: { accept: 'application/json' } });
  // 404 is both "no such chat yet" and "not yours": the handler does not say which, so ids cannot be probed.
  if (response.status === 404) return { found: false };
  if (!response.ok) throw new Error(`loading the conversation: ${response.status} ${await response.text()}`);
  const body = (await response.json()) as UIMessage[] | { messages: UIMessage[]; turnInProgress?: boolean };
  if (Array.isArray(body)) return { found: true, messages: body, turnInProgress: false };
  return { found: true, messages: body.messages, turnInProgress: body.turnInProgress === true };
}

export async function stopTurn(id: string): Promise<void> {
  // JSON, as every POST to the handler must be: a body another site's page could make a browser send is refused.
  const response = await fetch(`${chatApi}/${encodeURIComponent(id)}/stop`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  if (!response.ok && response.status !== 409) throw new Error(`stopping the turn: ${response.status} ${await response.text()}`);
}
