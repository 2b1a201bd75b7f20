import type { DynamicToolUIPart, ToolUIPart } from 'ai';

export type ToolPart = ToolUIPart | DynamicToolUIPart;

interface ToolCardProps {
  part: ToolPart;
  onDecide(approvalId: string, approved: boolean): void;
}

const stateLabels: Record<ToolPart['state'], string> = {
  'input-streaming': 'preparing',
  'input-available': 'running',
  'approval-requested': 'waiting for your approval',
  'approval-responded': 'decided',
  'output-available': 'done',
  'output-error': 'failed',
  'output-denied': 'denied',
};

/** A tool call as a card: what it is, its arguments, its result; and, when it waits for a person, approve and deny. */
export function ToolCard({ part, onDecide }: ToolCardProps) {
  const name = part.type === 'dynamic-tool' ? part.toolName : part.type.slice('tool-'.length);
  const approval = part.state === 'approval-requested' ? part.approval : undefined;
  return (
    <section className={`tool-card ${part.state}`} data-testid="tool-card" data-tool={name} data-state={part.state}>
      <header>
        <span className="tool-name">{part.title ?? name}</span>
        <span className="tool-state">{stateLabels[part.state]}</span>
      </header>
      {approval && (
        <div className="approval" data-testid="approval">
          <p className="approval-lead">The agent wants to run:</p>
          {/* What will really run, built by the server from the arguments, hidden characters made visible. */}
          <pre className="approval-description" data-testid="approval-description">
            {describe(approval, part.input)}
          </pre>
          <div className="approval-buttons">
            <button type="button" className="approve" onClick={() => onDecide(approval.id, true)}>
              Approve
            </button>
            <button type="button" className="deny" onClick={() => onDecide(approval.id, false)}>
              Deny
            </button>
          </div>
        </div>
      )}
      {!approval && part.input !== undefined && (
        // The arguments as the server's stream bounds them: long strings cut, and the cut says so.
        <details className="tool-input" data-testid="tool-input">
          <summary>Arguments</summary>
          <pre>{show(part.input)}</pre>
        </details>
      )}
      {part.state === 'output-available' && <pre className="tool-output">{show(part.output)}</pre>}
      {part.state === 'output-error' && <pre className="tool-output error">{part.errorText}</pre>}
      {part.state === 'output-denied' && <p className="tool-output denied">{part.approval.reason ?? 'Denied'}</p>}
    </section>
  );
}

function describe(approval: { descriptor?: unknown; requestReason?: string }, input: unknown): string {
  if (typeof approval.descriptor === 'string') return approval.descriptor;
  if (approval.descriptor && typeof approval.descriptor === 'object') {
    const description = (approval.descriptor as { description?: unknown }).description;
    if (typeof description === 'string') return description;
  }
  return approval.requestReason ?? show(input);
}

function show(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? '';
  } catch {
    return String(value);
  }
}
