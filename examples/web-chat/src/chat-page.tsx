import { useEffect, useState } from 'react';
import type { UIMessage } from 'ai';
import { Chat } from './chat';
import { chatIdFromAddress, newChatId } from './chat-id';
import { loadConversation } from './server-api';

type PageState =
  | { kind: 'loading' }
  | { kind: 'ready'; id: string; messages: UIMessage[]; existing: boolean }
  | { kind: 'missing'; id: string }
  | { kind: 'failed'; message: string };

/** Opens the chat named in the address (restoring its conversation), or a new one. */
export function ChatPage() {
  const [state, setState] = useState<PageState>({ kind: 'loading' });

  useEffect(() => {
    const id = chatIdFromAddress();
    if (!id) {
      setState({ kind: 'ready', id: newChatId(), messages: [], existing: false });
      return;
    }
    // `void`: an effect returns a cleanup or nothing, and Vite's minifier turned this branch into a returned promise.
    void loadConversation(id).then(
      (conversation) =>
        setState(
          conversation.found ? { kind: 'ready', id, messages: conversation.messages, existing: true } : { kind: 'missing', id },
        ),
      (error: Error) => setState({ kind: 'failed', message: error.message }),
    );
  }, []);

  return (
    <div className="page">
      <header className="top">
        <h1>durable-agent</h1>
        <a className="new-chat" href="?">
          New chat
        </a>
      </header>
      {state.kind === 'loading' && <p className="notice">Loading the conversation…</p>}
      {state.kind === 'failed' && <p className="notice error">{state.message}</p>}
      {state.kind === 'missing' && (
        <p className="notice" data-testid="chat-missing">
          There is no chat <code>{state.id}</code> that you can open.
        </p>
      )}
      {state.kind === 'ready' && <Chat id={state.id} initialMessages={state.messages} existing={state.existing} />}
    </div>
  );
}
