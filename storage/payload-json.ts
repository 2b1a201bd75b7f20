import type { Payload } from '@temporalio/common';
import { AgentError } from '../core/errors';
import { isRecord } from '../core/is-record';

/**
 * A payload as the codec-server protocol carries it: the protobuf JSON mapping
 * of temporal.api.common.v1.Payload, where bytes (each metadata value and the
 * data) are base64 strings. This is what the Web UI and `temporal --codec-endpoint` send.
 */
export interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

export class PayloadJsonError extends AgentError {}

/** Reads `{payloads: [...]}`; anything else is a PayloadJsonError saying what is wrong. */
export function payloadsFromJson(body: unknown): Payload[] {
  if (!isRecord(body) || !Array.isArray(body.payloads))
    throw new PayloadJsonError('the body must be a JSON object {"payloads": [...]}');
  return body.payloads.map((item: unknown, index: number) => {
    if (!isRecord(item)) throw new PayloadJsonError(`payloads[${index}] is not an object`);
    const { metadata, data } = item;
    if (metadata !== undefined && metadata !== null && !isRecord(metadata))
      throw new PayloadJsonError(`payloads[${index}].metadata is not an object`);
    if (data !== undefined && data !== null && typeof data !== 'string')
      throw new PayloadJsonError(`payloads[${index}].data is not a base64 string`);
    const decodedMetadata: Record<string, Uint8Array> = {};
    for (const [key, value] of Object.entries(metadata ?? {})) {
      if (typeof value !== 'string') throw new PayloadJsonError(`payloads[${index}].metadata.${key} is not a base64 string`);
      decodedMetadata[key] = Buffer.from(value, 'base64');
    }
    return { metadata: decodedMetadata, data: Buffer.from(data ?? '', 'base64') };
  });
}

export function payloadsToJson(payloads: Payload[]): { payloads: JsonPayload[] } {
  return {
    payloads: payloads.map((payload) => ({
      metadata: Object.fromEntries(
        Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value ?? []).toString('base64')]),
      ),
      // proto3 JSON leaves out empty bytes fields
      ...(payload.data && payload.data.length > 0 && { data: Buffer.from(payload.data).toString('base64') }),
    })),
  };
}
