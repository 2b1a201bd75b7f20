import type { UIMessage } from 'ai';

/**
 * What the handler tells besides the conversation, as data parts of the assistant's messages (`data-usage`: each
 * model call's usage, then the turn's), and where the session's run is. Read defensively: data comes over the wire.
 */
export interface TurnCost {
  costUsd?: number;
  inputTokens?: number;
  outputTokens?: number;
}

function dataParts(message: UIMessage): { type: string; data: Record<string, unknown> }[] {
  return message.parts.flatMap((part) =>
    part.type.startsWith('data-') && typeof (part as { data?: unknown }).data === 'object' && (part as { data?: unknown }).data
      ? [{ type: part.type, data: (part as { data: Record<string, unknown> }).data }]
      : [],
  );
}

const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** The message's turn usage: the last data part that carries token counts or a cost. */
export function costOf(message: UIMessage): TurnCost | undefined {
  let found: TurnCost | undefined;
  for (const { data } of dataParts(message)) {
    const usage = (typeof data.usage === 'object' && data.usage ? data.usage : data) as Record<string, unknown>;
    const cost = {
      costUsd: number(usage.costUsd),
      inputTokens: number(usage.inputTokens),
      outputTokens: number(usage.outputTokens),
    };
    if (cost.costUsd !== undefined || cost.inputTokens !== undefined) found = cost;
  }
  return found;
}

/**
 * Where the session's workflow is in the Temporal Web UI. The page is built for one deployment: the UI's address,
 * the namespace and the handler's workflow id prefix come from the build's environment (VITE_TEMPORAL_UI_URL,
 * VITE_TEMPORAL_NAMESPACE, VITE_CHAT_WORKFLOW_PREFIX), by default the dev server's (`agent serve` on localhost).
 * Without a run id the Web UI opens the workflow's latest run, which is the session's current one across
 * continue-as-new.
 */
export function runLinkOf(chatId: string): string {
  const ui = (import.meta.env.VITE_TEMPORAL_UI_URL ?? 'http://localhost:8233').replace(/\/+$/, '');
  const namespace = import.meta.env.VITE_TEMPORAL_NAMESPACE ?? 'default';
  const workflowId = `${import.meta.env.VITE_CHAT_WORKFLOW_PREFIX ?? 'chat-'}${chatId}`;
  return `${ui}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

export function formatCost(cost: TurnCost): string {
  const pieces: string[] = [];
  if (cost.costUsd !== undefined) pieces.push(`$${cost.costUsd < 0.01 ? cost.costUsd.toFixed(4) : cost.costUsd.toFixed(2)}`);
  if (cost.inputTokens !== undefined) pieces.push(`${cost.inputTokens.toLocaleString('en-US')} in`);
  if (cost.outputTokens !== undefined) pieces.push(`${cost.outputTokens.toLocaleString('en-US')} out`);
  return pieces.join(' · ');
}
