import { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Payload = temporal.api.common.v1.IPayload;

export interface StorageReference {
  driverName: string;
  claimData: Record<string, string>;
}

/** Every payload anywhere in these events (inputs, results, update arguments, summaries…), with its event type. */
export function historyPayloads(events: HistoryEvent[]): Array<{ eventType: string; payload: Payload }> {
  const found: Array<{ eventType: string; payload: Payload }> = [];
  for (const event of events) {
    const eventType = temporal.api.enums.v1.EventType[event.eventType!];
    visit(event, (payload) => found.push({ eventType, payload }));
  }
  return found;
}

function visit(value: unknown, onPayload: (payload: Payload) => void): void {
  if (!value || typeof value !== 'object' || ArrayBuffer.isView(value)) return;
  if (Array.isArray(value)) return value.forEach((item) => visit(item, onPayload));
  const record = value as Record<string, unknown>;
  if (record.metadata && typeof record.metadata === 'object' && ArrayBuffer.isView(record.data))
    return onPayload(record as Payload);
  for (const child of Object.values(record)) visit(child, onPayload);
}

/** The external-storage reference a payload stands for, or undefined when the payload is inline. */
export function storageReference(payload: Payload): StorageReference | undefined {
  const metadata = (key: string) => (payload.metadata?.[key] ? Buffer.from(payload.metadata[key]).toString() : undefined);
  if (metadata('encoding') !== 'json/protobuf' || metadata('messageType') !== 'temporal.api.sdk.v1.ExternalStorageReference')
    return undefined;
  return JSON.parse(Buffer.from(payload.data!).toString()) as StorageReference;
}
