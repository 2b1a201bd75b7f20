/**
 * Tool-call ids as an API behind an AI SDK package accepts them. Most take any id; Mistral refuses one that is not
 * nine letters and digits ("Tool call id was toolu_01… but must be a-z, A-Z, 0-9, with a length of 9"), which a
 * conversation begun on another provider, or an id made unique (core/call-ids.ts), is not. Such an id is sent as a
 * hash of itself, the same on every call, so a call and its result still match; the conversation keeps its own ids.
 */
export function wireCallIds(packageProvider: string): (id: string) => string {
  return packageProvider.startsWith('mistral') ? mistralCallId : (id) => id;
}

const mistralIdPattern = /^[A-Za-z0-9]{9}$/;
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function mistralCallId(id: string): string {
  if (mistralIdPattern.test(id)) return id;
  // Two 32-bit FNV-1a hashes (of the id, and of it reversed) give 64 bits for nine base-62 characters (53.6 bits).
  let first = 0x811c9dc5;
  let second = 0x811c9dc5;
  for (let index = 0; index < id.length; index++) {
    first = Math.imul(first ^ id.charCodeAt(index), 0x01000193) >>> 0;
    second = Math.imul(second ^ id.charCodeAt(id.length - 1 - index), 0x01000193) >>> 0;
  }
  let value = (BigInt(first) << 32n) | BigInt(second);
  let text = '';
  for (let index = 0; index < 9; index++) {
    text += alphabet[Number(value % 62n)];
    value /= 62n;
  }
  return text;
}
