import type { UIMessage } from 'ai';

/**
 * What the handler tells besides the conversation, as data parts of the assistant's messages: the turn's usage and
 * cost, and where the session's run is in the Temporal Web UI. Read defensively: the data comes over the wire.
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

/** The Temporal Web UI address of the run, from any message that carries it; only http(s) links are followed. */
export function runLinkOf(messages: UIMessage[]): string | undefined {
  for (const message of [...messages].reverse()) {
    for (const { data } of dataParts(message)) {
      const link = data.webUiUrl ?? data.webUi ?? data.runUrl;
      if (typeof link === 'string' && /^https?:\/\//.test(link)) return link;
    }
  }
  return undefined;
}

export function formatCost(cost: TurnCost): string {
  const pieces: string[] = [];
  if (cost.costUsd !== undefined) pieces.push(`$${cost.costUsd < 0.01 ? cost.costUsd.toFixed(4) : cost.costUsd.toFixed(2)}`);
  if (cost.inputTokens !== undefined) pieces.push(`${cost.inputTokens.toLocaleString('en-US')} in`);
  if (cost.outputTokens !== undefined) pieces.push(`${cost.outputTokens.toLocaleString('en-US')} out`);
  return pieces.join(' · ');
}
