import { randomBytes } from 'node:crypto';
import type { Payload } from '@temporalio/common';

/** A fresh AES-256 key as AGENT_ENCRYPTION_KEYS takes it: `id:base64`. */
export function newKeyEntry(id: string): string {
  return `${id}:${randomBytes(32).toString('base64')}`;
}

/** A JSON payload as the default converter writes it. */
export function jsonPayload(value: unknown): Payload {
  return { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(value)) };
}

export function metadataText(payload: Payload, key: string): string | undefined {
  const value = payload.metadata?.[key];
  return value ? Buffer.from(value).toString() : undefined;
}
