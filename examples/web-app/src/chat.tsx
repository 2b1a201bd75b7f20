import { useEffect, useState } from 'react';
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, type UIMessage } from 'ai';

/** The chat's id is the session's: kept in the address, so that a reload or a bookmark opens the same session. */
function chatIdFromAddress(): string {
  const url = new URL(window.location.href);
  const existing = url.searchParams.get('chat');
  if (existing) return existing;
  const id = crypto.randomUUID();
  url.searchParams.set('chat', id);
  window.history.replaceState(null, '', url);
  return id;
}

const chatId = chatIdFromAddress();

/** Loads the conversation so far (GET /api/chat/:id), then shows the chat; a new chat starts empty (404). */
export function Chat() {
  const [initial, setInitial] = useState<UIMessage[]>();
  useEffect(() => {
    void fetch(`/api/chat/${chatId}`).then(async (response) =>
      setInitial(response.ok ? ((await response.json()) as { messages: UIMessage[] }).messages : []),
    );
  }, []);
  return initial ? <Conversation initial={initial} /> : <p>Loading…</p>;
}

function Conversation({ initial }: { initial: UIMessage[] }) {
  const { messages, sendMessage, status } = useChat({
    id: chatId,
    messages: initial,
    resume: true, // a reload mid-answer reconnects to the turn in progress
    transport: new DefaultChatTransport({ api: '/api/chat' }),
  });
  const [draft, setDraft] = useState('');
  const busy = status === 'submitted' || status === 'streaming';
  return (
    <main>
      {messages.map((message) => (
        <p key={message.id} data-role={message.role}>
          <b>{message.role === 'user' ? 'You' : 'Agent'}:</b>{' '}
          {message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('')}
        </p>
      ))}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!draft.trim() || busy) return;
          void sendMessage({ text: draft });
          setDraft('');
        }}
      >
        <input aria-label="Message" value={draft} onChange={(event) => setDraft(event.target.value)} />
        <button type="submit" disabled={busy}>
          Send
        </button>
        <button
          type="button"
          disabled={!busy}
          onClick={() =>
            void fetch(`/api/chat/${chatId}/stop`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: '{}',
            })
          }
        >
          Stop
        </button>
      </form>
    </main>
  );
}
