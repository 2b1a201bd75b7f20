import { createHmac } from 'node:crypto';

/**
 * How the fake server seals the reasoning it hands out, so that it can tell, as
 * the real APIs do, whether a request sent it back unchanged: Anthropic's
 * thinking signatures and redacted-thinking data, OpenAI's encrypted reasoning.
 * A seal names the response and the place the block had in it, and carries an
 * HMAC of all that and the text; change one byte and it no longer verifies.
 */

const secret = 'durable-agent fake model server';

interface Seal {
  /** The response that produced the block, its place among that response's reasoning blocks, and how many there were. */
  response: string;
  index: number;
  count: number;
}

function mac(seal: Seal, text: string): string {
  return createHmac('sha256', secret).update(`${seal.response}|${seal.index}|${seal.count}|${text}`).digest('base64');
}

export function seal(value: Seal, text: string): string {
  return Buffer.from(JSON.stringify({ ...value, mac: mac(value, text) })).toString('base64');
}

/** The seal, when `sealed` is one this server made for exactly this text; undefined otherwise. */
export function unseal(sealed: unknown, text: string): Seal | undefined {
  if (typeof sealed !== 'string') return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(sealed, 'base64').toString('utf8')) as Seal & { mac: string };
    const value: Seal = { response: parsed.response, index: parsed.index, count: parsed.count };
    // A re-encoded seal (other base64 bytes, same JSON) is a changed payload too.
    return parsed.mac === mac(value, text) && seal(value, text) === sealed ? value : undefined;
  } catch {
    return undefined;
  }
}

let responses = 0;

/** A fresh response id for sealing (`kind_fake_<n>`). */
export function nextResponseId(kind: string): string {
  return `${kind}_fake_${++responses}`;
}
