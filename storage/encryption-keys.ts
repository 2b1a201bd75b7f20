import { readFileSync } from 'node:fs';
import { ConfigurationError } from '../core/errors';

/** AES-256 keys are 32 bytes. */
export const encryptionKeyBytes = 32;

export interface EncryptionKey {
  /** Written into every payload it encrypts, so a reader knows which key to use. */
  id: string;
  material: Buffer;
}

/**
 * The keys a process knows, newest first: it encrypts with the first and
 * decrypts with any of them, so a key can be rotated without re-encrypting
 * history (put the new key first and keep the old ones while runs that used
 * them are still open or inspected).
 */
export interface EncryptionKeyRing {
  current: EncryptionKey;
  byId: ReadonlyMap<string, EncryptionKey>;
}

const keyIdPattern = /^[A-Za-z0-9._-]{1,64}$/;
const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The key ring configured by AGENT_ENCRYPTION_KEYS (`id:base64key,id:base64key`)
 * or AGENT_ENCRYPTION_KEY_FILE (the same entries, one per line or comma-separated,
 * `#` starting a comment), or undefined when neither is set. Any mistake in the
 * key material is a ConfigurationError naming the entry, raised at start-up.
 */
export function loadEncryptionKeys(env: NodeJS.ProcessEnv = process.env): EncryptionKeyRing | undefined {
  const inline = env.AGENT_ENCRYPTION_KEYS?.trim();
  const file = env.AGENT_ENCRYPTION_KEY_FILE?.trim();
  if (inline && file) {
    throw new ConfigurationError('set AGENT_ENCRYPTION_KEYS or AGENT_ENCRYPTION_KEY_FILE, not both');
  }
  if (inline) return parseEncryptionKeys(inline, 'AGENT_ENCRYPTION_KEYS');
  if (file) return parseEncryptionKeys(readKeyFile(file), `AGENT_ENCRYPTION_KEY_FILE ${file}`);
  return undefined;
}

export function parseEncryptionKeys(text: string, source: string): EncryptionKeyRing {
  const entries = text
    .split('\n')
    .map((line) => line.replace(/#.*$/, ''))
    .flatMap((line) => line.split(','))
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new ConfigurationError(`${source} holds no keys; expected id:base64key[,id:base64key…]`);
  const keys = entries.map((entry, index) => parseEntry(entry, index + 1, source));
  const byId = new Map<string, EncryptionKey>();
  for (const key of keys) {
    if (byId.has(key.id)) throw new ConfigurationError(`${source}: key id "${key.id}" appears twice`);
    byId.set(key.id, key);
  }
  return { current: keys[0], byId };
}

function parseEntry(entry: string, position: number, source: string): EncryptionKey {
  const separator = entry.indexOf(':');
  if (separator < 0) throw new ConfigurationError(`${source}: key ${position} is not of the form id:base64key`);
  const id = entry.slice(0, separator).trim();
  const encoded = entry.slice(separator + 1).trim();
  if (!keyIdPattern.test(id)) {
    throw new ConfigurationError(
      `${source}: key ${position} has an invalid id "${id}" (use 1-64 letters, digits, '.', '_' or '-')`,
    );
  }
  // Buffer.from(…, 'base64') skips characters it does not know; a typo would silently become another key.
  if (!base64Pattern.test(encoded)) throw new ConfigurationError(`${source}: key "${id}" is not valid base64`);
  const material = Buffer.from(encoded, 'base64');
  if (material.length !== encryptionKeyBytes) {
    throw new ConfigurationError(
      `${source}: key "${id}" is ${material.length} bytes; AES-256 needs ${encryptionKeyBytes} (generate one with ` +
        `node -e "console.log(require('crypto').randomBytes(32).toString('base64'))")`,
    );
  }
  return { id, material };
}

function readKeyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigurationError(
      `cannot read AGENT_ENCRYPTION_KEY_FILE ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}
