import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { useEffect, useMemo, useRef, useState, type ClipboardEvent, type FormEvent } from 'react';
import { acceptedTypes, filesProblem, formatSize, toFileParts } from './attached-files';
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
  const transport = useMemo(
    () =>
      new DefaultChatTransport({
        api: chatApi,
        // The server reads only the newest message (the session holds the conversation): sending the earlier ones
        // too would send every image already attached again, as base64, in each request.
        prepareSendMessagesRequest: ({ id: chatId, messages: all, trigger, messageId, body }) => ({
          body: { ...body, id: chatId, messages: all.slice(-1), trigger, messageId },
        }),
      }),
    [],
  );
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
  // Images and files to go with the next message (picked or pasted), and why they cannot, if they cannot.
  const [files, setFiles] = useState<File[]>([]);
  const [fileError, setFileError] = useState<string>();
  const fileInput = useRef<HTMLInputElement>(null);
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

  function attach(added: File[]) {
    const next = [...files, ...added];
    const problem = filesProblem(next);
    setFileError(problem);
    if (!problem) setFiles(next);
  }

  /** The attached files as useChat's file parts, taken out of the composer; undefined when there are none. */
  async function takeFiles() {
    if (files.length === 0) return undefined;
    const parts = await toFileParts(files);
    setFiles([]);
    setFileError(undefined);
    return parts;
  }

  function onPaste(event: ClipboardEvent<HTMLTextAreaElement>) {
    const pasted = [...event.clipboardData.files];
    if (pasted.length === 0) return;
    // A pasted screenshot is a file, not text to insert.
    if (!event.clipboardData.types.includes('text/plain')) event.preventDefault();
    attach(pasted);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const text = draft.trim();
    if (text === '' || awaitingDecision) return;
    showChatInAddress(id);
    setDraft('');
    const parts = await takeFiles().catch((failure: Error) => {
      setFileError(failure.message);
      return null;
    });
    if (parts === null) return;
    void sendMessage(parts ? { text, files: parts } : { text });
  }

  // A steering message joins the turn in progress after its current step (README, "Steering a turn"). This tab's
  // stream of the turn ends here (stop() only aborts the fetch; the turn goes on), and the steering request's response
  // is the turn from where it takes the message: a message of its own, after the person's. Then the page takes the
  // server's conversation, which has what happened in between (the tool results this tab stopped following).
  async function steer() {
    const text = draft.trim();
    if (text === '' || awaitingDecision) return;
    setDraft('');
    const parts = await takeFiles();
    await stop();
    await sendMessage(parts ? { text, files: parts } : { text }, { body: { steer: true } });
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
      {fileError && (
        <p className="notice error" role="alert" data-testid="file-error">
          {fileError}
        </p>
      )}
      {files.length > 0 && (
        <ul className="pending-files" data-testid="pending-files">
          {files.map((file, index) => (
            <li key={`${file.name}-${index}`}>
              {file.name} ({formatSize(file.size)})
              <button
                type="button"
                aria-label={`Remove ${file.name}`}
                onClick={() => setFiles(files.filter((_, other) => other !== index))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="composer" onSubmit={(event) => void submit(event)}>
        <input
          ref={fileInput}
          type="file"
          multiple
          hidden
          accept={acceptedTypes.join(',')}
          aria-label="Attach files"
          onChange={(event) => {
            attach([...(event.target.files ?? [])]);
            // The same file may be picked again after it was removed.
            event.target.value = '';
          }}
        />
        <button
          type="button"
          className="attach"
          title="Attach images or files (or paste them)"
          onClick={() => fileInput.current?.click()}
        >
          Attach
        </button>
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
          onPaste={onPaste}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey) void submit(event);
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
