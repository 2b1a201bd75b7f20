/**
 * The conversation this page shows is named in the address (`?chat=<id>`), so a reload, a bookmark or a second tab
 * opens the same durable session. A new chat gets a fresh id, written into the address without a reload.
 */
export function chatIdFromAddress(): string | undefined {
  const id = new URLSearchParams(window.location.search).get('chat');
  return id && /^[\w.-]{1,200}$/.test(id) ? id : undefined;
}

export function newChatId(): string {
  return `chat-${crypto.randomUUID()}`;
}

export function showChatInAddress(id: string): void {
  const url = new URL(window.location.href);
  url.searchParams.set('chat', id);
  window.history.replaceState(null, '', url);
}
