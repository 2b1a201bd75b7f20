import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { showChatInAddress } from './chat-id';
import { MessageView } from './message-view';
import { runLinkOf } from './run-facts';
import { chatApi, loadConversation, stopTurn } from './server-api';

interface ChatProps {
  id: string;
  initialMessages: UIMessage[];
  /** Whether the server has this chat already: only then may a turn be in progress to resume. */
  existing: boolean;
}

export function Chat({ id, initialMessages, existing }: ChatProps) {
  const transport = useMemo(() => new DefaultChatTransport({ api: chatApi }), []);
  const { messages, setMessages, sendMessage, resumeStream, status, stop, addToolApprovalResponse, error } = useChat({
    id,
    messages: initialMessages,
    transport,
    // A reload in the middle of an answer reconnects to the turn in progress (GET /api/chat/:id/stream, 204 when idle).
    resume: existing,
    // An approval or denial goes to the server at once; the turn waiting for it goes on.
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [draft, setDraft] = useState('');
  const [stopError, setStopError] = useState<string>();
  const busy = status === 'submitted' || status === 'streaming';
  // While a tool call waits for the person, the page asks for a decision made on purpose: a message sent then would
  // deny the call, with the message as the reason (docs/web.md, Routes), so the page does not offer one.
  const awaitingDecision = messages.some((message) =>
    message.parts.some((part) => 'state' in part && part.state === 'approval-requested'),
  );
  const runLink = runLinkOf(id);
  const bottom = useRef<HTMLDivElement>(null);
  const [syncError, setSyncError] = useState<string>();
  // Read by the focus listener, which outlives renders: whether this tab streams a turn, and whether it is catching up.
  const busyNow = useRef(busy);
  busyNow.current = busy;
  const catchingUp = useRef(false);

  // Another tab of the same chat may have sent a message: nothing pushes it here, so this tab asks when it comes to
  // the front (one query, no polling), takes the server's conversation and follows the turn in progress, if any. Not
  // while this tab streams a turn itself, and once at a time, since focus and visibilitychange arrive together.
  useEffect(() => {
    async function catchUp() {
      if (document.visibilityState !== 'visible' || busyNow.current || catchingUp.current) return;
      catchingUp.current = true;
      try {
        const conversation = await loadConversation(id);
        if (!conversation.found || busyNow.current) return;
        setSyncError(undefined);
        setMessages(conversation.messages);
        // The resumed stream starts at the turn's start with the id of its message: useChat replaces it, shown once.
        if (conversation.turnInProgress) await resumeStream();
      } catch (failure) {
        setSyncError((failure as Error).message);
      } finally {
        catchingUp.current = false;
      }
    }
    const onFront = () => void catchUp();
    window.addEventListener('focus', onFront);
    document.addEventListener('visibilitychange', onFront);
    return () => {
      window.removeEventListener('focus', onFront);
      document.removeEventListener('visibilitychange', onFront);
    };
  }, [id, setMessages, resumeStream]);

  // Effects return nothing but a cleanup: the block body keeps the minifier from returning scrollIntoView's value.
  useEffect(() => {
    bottom.current?.scrollIntoView({ block: 'end' });
  }, [messages]);

  function submit(event: FormEvent) {
    event.preventDefault();
    const text = draft.trim();
    if (text === '' || awaitingDecision) return;
    showChatInAddress(id);
    setDraft('');
    void sendMessage({ text });
  }

  // A steering message joins the turn in progress after its current step (README, "Steering a turn"). This tab's
  // stream of the turn ends here (stop() only aborts the fetch; the turn goes on), and the steering request's response
  // is the turn from where it takes the message: a message of its own, after the person's. Then the page takes the
  // server's conversation, which has what happened in between (the tool results this tab stopped following).
  async function steer() {
    const text = draft.trim();
    if (text === '' || awaitingDecision) return;
    setDraft('');
    await stop();
    await sendMessage({ text }, { body: { steer: true } });
    const conversation = await loadConversation(id).catch(() => undefined);
    if (conversation?.found && !busyNow.current) setMessages(conversation.messages);
  }

  async function stopAnswer() {
    // stop() only closes this page's stream; the stop route interrupts the turn itself, and the session goes on.
    void stop();
    setStopError(undefined);
    await stopTurn(id).catch((failure: Error) => setStopError(failure.message));
  }

  return (
    <main className="chat" data-status={status}>
      <div className="run-line">
        <span className="chat-id" title="This chat's session id">
          {id}
        </span>
        {messages.length > 0 && (
          <a href={runLink} target="_blank" rel="noreferrer" data-testid="run-link">
            Open the run in the Temporal Web UI
          </a>
        )}
      </div>
      {messages.length === 0 && (
        <p className="empty">
          Ask the agent anything. The conversation is durable: close the page, come back, and it is still here; a tool call that
          needs your approval waits for you.
        </p>
      )}
      <ol className="messages" data-testid="messages">
        {messages.map((message) => (
          <MessageView
            key={message.id}
            message={message}
            onDecide={(approvalId, approved) =>
              void addToolApprovalResponse({
                id: approvalId,
                approved,
                ...(!approved && { reason: 'Denied by the person in the chat page.' }),
              })
            }
          />
        ))}
      </ol>
      <div ref={bottom} />
      {error && (
        <p className="notice error" role="alert">
          {error.message}
        </p>
      )}
      {syncError && (
        <p className="notice error" role="alert">
          {syncError}
        </p>
      )}
      {stopError && (
        <p className="notice error" role="alert">
          {stopError}
        </p>
      )}
      <form className="composer" onSubmit={submit}>
        <textarea
          aria-label="Message"
          placeholder={
            awaitingDecision
              ? 'Approve or deny the tool call above first; the agent then goes on, and you can write again.'
              : busy
                ? 'The agent is answering; a message sent now waits for the turn to end.'
                : 'Ask the agent…'
          }
          value={draft}
          rows={2}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey) submit(event);
          }}
        />
        {busy ? (
          <>
            <button
              type="button"
              className="steer"
              disabled={draft.trim() === '' || awaitingDecision}
              onClick={() => void steer()}
            >
              Steer
            </button>
            <button type="button" className="stop" onClick={() => void stopAnswer()}>
              Stop
            </button>
          </>
        ) : (
          <button type="submit" disabled={draft.trim() === '' || awaitingDecision}>
            Send
          </button>
        )}
      </form>
    </main>
  );
}
