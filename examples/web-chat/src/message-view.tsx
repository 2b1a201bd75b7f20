import type { FileUIPart, UIMessage } from 'ai';
import { AttachmentView } from './attachment-view';
import { ToolCard, type ToolPart } from './tool-card';
import { costOf, formatCost } from './run-facts';
import { formatWait, waitOf } from './wait-facts';

interface MessageViewProps {
  message: UIMessage;
  onDecide(approvalId: string, approved: boolean): void;
}

/**
 * One message: its images and files (thumbnails and chips, above its text), its text, thinking (collapsed), tool calls
 * as cards, and for the assistant the turn's cost.
 */
export function MessageView({ message, onDecide }: MessageViewProps) {
  const cost = message.role === 'assistant' ? costOf(message) : undefined;
  // Calls with their result (or error, or denial): a wait of theirs is over.
  const answered = new Set(
    message.parts.flatMap((part) =>
      'toolCallId' in part && 'state' in part && String(part.state).startsWith('output-') ? [String(part.toolCallId)] : [],
    ),
  );
  const files = message.parts.filter((part): part is FileUIPart => part.type === 'file');
  return (
    <li className={`message ${message.role}`} data-role={message.role}>
      <div className="who">{message.role === 'user' ? 'You' : 'Agent'}</div>
      <div className="body">
        <AttachmentView parts={files} />
        {message.parts.map((part, index) => {
          const key = `${message.id}-${index}`;
          if (part.type === 'text') {
            // Text is rendered as text: the model's words never become markup.
            return (
              <p key={key} className="text" data-testid="text">
                {part.text}
              </p>
            );
          }
          if (part.type === 'reasoning') {
            // Collapsed: the model's thinking as the server streamed it (redacted thinking never reaches the page).
            return (
              <details key={key} className="thinking" data-testid="thinking">
                <summary>{part.state === 'streaming' ? 'Thinking…' : 'Thinking'}</summary>
                <p className="thinking-text">{part.text || 'The model thought; its provider does not show the reasoning.'}</p>
              </details>
            );
          }
          if (part.type === 'data-steered') {
            // A steering message the turn took while this page followed it (sent from another tab or the CLI).
            const { text } = part.data as { text: string };
            return (
              <p key={key} className="steered" data-testid="steered">
                You steered: {text}
              </p>
            );
          }
          if (part.type === 'data-wait') {
            // What a tool call waits for and until when, while it waits: gone once the call has its result.
            const wait = waitOf(part as { type: string; data?: unknown });
            if (!wait || answered.has(wait.callId)) return null;
            return (
              <p key={key} className="waiting" data-testid="waiting">
                {formatWait(wait)}
              </p>
            );
          }
          if (part.type === 'dynamic-tool' || part.type.startsWith('tool-')) {
            return <ToolCard key={key} part={part as ToolPart} onDecide={onDecide} />;
          }
          return null;
        })}
        {cost && (
          <div className="cost" data-testid="cost">
            {formatCost(cost)}
          </div>
        )}
      </div>
    </li>
  );
}
