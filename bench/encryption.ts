import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { EncryptionCodec } from '../storage/encryption-codec';
import { parseEncryptionKeys } from '../storage/encryption-keys';
import type { Benchmark } from './support/benchmark';
import { formatBytes, formatMs, markdownTable, type TargetRow } from './support/format';
import { log } from './support/log';
import { median } from './support/stats';

const PayloadMessage = temporal.api.common.v1.Payload;

/** 1 KiB (a model turn's text), 64 KiB (the largest tool result), 1 MiB (a long conversation carried across continue-as-new). */
const sizes = [1024, 64 * 1024, 1024 * 1024];
const maxBytesAdded = 100;

/**
 * What AGENT_ENCRYPTION_KEYS costs per payload, side by side with what every
 * payload costs anyway: converting a value to a JSON payload and back. Both run
 * in this process on the same values, alternating, so the ratio holds on a busy
 * machine better than either time does.
 */
export const encryption: Benchmark = {
  name: 'encryption',
  title: 'Payload encryption: time and bytes per payload',
  async run(context) {
    const codec = new EncryptionCodec(parseEncryptionKeys(`bench:${randomBytes(32).toString('base64')}`, 'bench'));
    const rounds = context.quick ? 50 : 300;
    const rows: string[][] = [];
    let largestAdded = 0;
    for (const size of sizes) {
      log(`encryption: ${formatBytes(size)} payloads, ${rounds} rounds...`);
      const value = { role: 'tool', content: randomText(size) };
      const json: number[] = [];
      const crypto: number[] = [];
      let plain: Payload = defaultPayloadConverter.toPayload(value);
      let encrypted: Payload = plain;
      for (let round = 0; round < rounds; round++) {
        let started = performance.now();
        plain = defaultPayloadConverter.toPayload(value);
        defaultPayloadConverter.fromPayload(plain);
        json.push(performance.now() - started);

        started = performance.now();
        [encrypted] = await codec.encode([plain]);
        await codec.decode([encrypted]);
        crypto.push(performance.now() - started);
      }
      const added = protoBytes(encrypted) - protoBytes(plain);
      largestAdded = Math.max(largestAdded, added);
      rows.push([
        formatBytes(protoBytes(plain)),
        formatMs(median(json)),
        formatMs(median(crypto)),
        `${(median(crypto) / median(json)).toFixed(2)}×`,
        `+${added} B`,
      ]);
    }
    const table = markdownTable(
      ['payload', 'to JSON payload and back (median)', 'encrypt and decrypt (median)', 'encryption / JSON', 'bytes added'],
      rows,
    );
    const targets: TargetRow[] = [
      {
        measure: 'bytes an encrypted payload adds',
        result: `at most ${largestAdded} B per payload with a 5-character key id (nonce, GCM tag, encoding and key id metadata)`,
        target: `≤ ${maxBytesAdded} B per payload`,
        pass: largestAdded <= maxBytesAdded,
      },
    ];
    return { details: [table], targets };
  },
};

function protoBytes(payload: Payload): number {
  return PayloadMessage.encode(payload).finish().length;
}

/** Text that JSON has to escape now and then, like real tool output. */
function randomText(bytes: number): string {
  const words = ['alpha', 'beta', 'const x = "y";', 'line\n', 'tab\t', 'ünïcode', '{ "json": true }'];
  let text = '';
  while (text.length < bytes) text += `${words[text.length % words.length]} `;
  return text.slice(0, bytes);
}
