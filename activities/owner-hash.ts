import { createHash } from 'node:crypto';

/**
 * A principal as a run records it, its owner in the memo (serve/http/run-owner.ts), and as prepareRun records the
 * `principals` of an approval policy's rules (core/approval-policy.ts): a hash, so neither the Web UI nor the
 * history shows a user's name. Here, below both, because both need the same one.
 */
export function ownerHash(principal: string): string {
  return createHash('sha256').update(`durable-agent/web owner\0${principal}`).digest('hex');
}
