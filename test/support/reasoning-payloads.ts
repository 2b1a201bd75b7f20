/**
 * Every reasoning payload in wire JSON (a reply, or a request body), in order:
 * Anthropic thinking signatures and redacted-thinking data, OpenAI encrypted
 * reasoning. A test compares what the fake server handed out with what came back.
 */
export function reasoningPayloads(json: unknown): string[] {
  if (Array.isArray(json)) return json.flatMap(reasoningPayloads);
  if (!json || typeof json !== 'object') return [];
  const record = json as Record<string, unknown>;
  const own =
    record.type === 'thinking'
      ? record.signature
      : record.type === 'redacted_thinking'
        ? record.data
        : record.type === 'reasoning'
          ? record.encrypted_content
          : undefined;
  return [...(typeof own === 'string' ? [own] : []), ...Object.values(record).flatMap(reasoningPayloads)];
}

/** The payloads of a scripted reply. */
export function servedPayloads(step: unknown): string[] {
  return reasoningPayloads((step as { json?: unknown }).json);
}
