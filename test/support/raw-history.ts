import { Client, type Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

type Payload = temporal.api.common.v1.IPayload;

export interface RawHistory {
  /** The history's protobuf bytes, as the server stores and serves them. */
  bytes: Buffer;
  events: temporal.api.history.v1.IHistoryEvent[];
  /**
   * Every payload anywhere in the history (inputs, results, summaries, details, queries' answers recorded in events),
   * except those Temporal keeps in the clear by design, and which name our code, not anything of the user's: the
   * patch markers Core records for `patched()`, and search attributes (the server indexes them; `patched()` upserts
   * `TemporalChangeVersion`).
   */
  payloads: Payload[];
}

/** The marker Core records for `patched()`. */
const patchMarkerName = 'core_patch';

/**
 * A run's history exactly as Temporal holds it, read by a client with the
 * default data converter: no codec, no external-storage retrieval.
 */
export async function fetchRawHistory(connection: Connection, workflowId: string, namespace = 'default'): Promise<RawHistory> {
  const history = await new Client({ connection, namespace }).workflow.getHandle(workflowId).fetchHistory();
  return {
    bytes: Buffer.from(temporal.api.history.v1.History.encode(history).finish()),
    events: history.events ?? [],
    payloads: collectPayloads(
      (history.events ?? []).filter((event) => event.markerRecordedEventAttributes?.markerName !== patchMarkerName),
      [],
      new Set(['searchAttributes']),
    ),
  };
}

/** Walks any protobuf message object and returns the values shaped like a Payload (metadata map plus data bytes). */
export function collectPayloads(message: unknown, found: Payload[] = [], skippedKeys = new Set<string>()): Payload[] {
  if (message === null || typeof message !== 'object' || ArrayBuffer.isView(message)) return found;
  if (Array.isArray(message)) {
    for (const item of message) collectPayloads(item, found, skippedKeys);
    return found;
  }
  const candidate = message as Record<string, unknown>;
  if (isPayload(candidate)) {
    found.push(candidate as Payload);
    return found;
  }
  for (const [key, value] of Object.entries(candidate)) if (!skippedKeys.has(key)) collectPayloads(value, found, skippedKeys);
  return found;
}

function isPayload(value: Record<string, unknown>): boolean {
  const metadata = value.metadata as Record<string, unknown> | undefined;
  return typeof metadata === 'object' && metadata !== null && ArrayBuffer.isView(metadata.encoding);
}

export function encodingOf(payload: Payload): string {
  return Buffer.from(payload.metadata?.encoding ?? []).toString();
}

/** The payloads of protobuf JSON (e.g. `temporal workflow show --output json`), each as "encoding data" in text. */
export function payloadTextsFromJson(json: unknown, found: string[] = []): string[] {
  if (json === null || typeof json !== 'object') return found;
  if (Array.isArray(json)) {
    for (const item of json) payloadTextsFromJson(item, found);
    return found;
  }
  const record = json as Record<string, unknown>;
  const metadata = record.metadata as Record<string, unknown> | undefined;
  if (typeof metadata?.encoding === 'string') {
    const text = (base64: unknown) => (typeof base64 === 'string' ? Buffer.from(base64, 'base64').toString() : '');
    found.push(`${text(metadata.encoding)} ${text(record.data)}`);
    return found;
  }
  for (const value of Object.values(record)) payloadTextsFromJson(value, found);
  return found;
}
