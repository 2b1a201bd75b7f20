import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ConfigurationError } from '../../core/errors';
import { loadEncryptionKeys } from '../../storage/encryption-keys';
import { agentDataConverter } from '../../storage/data-converter';
import { newKeyEntry } from '../support/encryption';

function configurationError(env: NodeJS.ProcessEnv): string {
  try {
    loadEncryptionKeys(env);
  } catch (error) {
    if (error instanceof ConfigurationError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigurationError');
}

describe('loadEncryptionKeys', () => {
  it('is off when neither variable is set', () => {
    expect(loadEncryptionKeys({})).toBeUndefined();
  });

  it('reads id:base64 entries; the first is the one that encrypts', () => {
    const keys = loadEncryptionKeys({ AGENT_ENCRYPTION_KEYS: `${newKeyEntry('2025-06')}, ${newKeyEntry('2025-01')}` })!;
    expect(keys.current.id).toBe('2025-06');
    expect([...keys.byId.keys()]).toEqual(['2025-06', '2025-01']);
    expect(keys.current.material).toHaveLength(32);
  });

  it('reads a key file with one entry per line or comma-separated, and # comments', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'keys-'));
    const file = path.join(directory, 'keys');
    await writeFile(file, `# current\n${newKeyEntry('new')}\n\n# kept to read old runs\n${newKeyEntry('old')}\n`);
    const keys = loadEncryptionKeys({ AGENT_ENCRYPTION_KEY_FILE: file })!;
    expect(keys.current.id).toBe('new');
    expect([...keys.byId.keys()]).toEqual(['new', 'old']);

    await writeFile(file, `${newKeyEntry('first')},${newKeyEntry('second')}\n`);
    expect([...loadEncryptionKeys({ AGENT_ENCRYPTION_KEY_FILE: file })!.byId.keys()]).toEqual(['first', 'second']);
  });

  it('refuses a key of the wrong length, naming it and its size', () => {
    expect(configurationError({ AGENT_ENCRYPTION_KEYS: `short:${randomBytes(16).toString('base64')}` })).toMatch(
      /^AGENT_ENCRYPTION_KEYS: key "short" is 16 bytes; AES-256 needs 32/,
    );
  });

  it('refuses key material that is not base64 rather than decoding what it can', () => {
    const almost = randomBytes(32).toString('base64').replace(/^./, '!');
    expect(configurationError({ AGENT_ENCRYPTION_KEYS: `typo:${almost}` })).toBe(
      'AGENT_ENCRYPTION_KEYS: key "typo" is not valid base64',
    );
  });

  it('refuses entries without an id, bad ids and repeated ids', () => {
    const material = randomBytes(32).toString('base64');
    expect(configurationError({ AGENT_ENCRYPTION_KEYS: material })).toBe(
      'AGENT_ENCRYPTION_KEYS: key 1 is not of the form id:base64key',
    );
    expect(configurationError({ AGENT_ENCRYPTION_KEYS: `a b:${material}` })).toMatch(/key 1 has an invalid id "a b"/);
    expect(configurationError({ AGENT_ENCRYPTION_KEYS: `k:${material},k:${material}` })).toBe(
      'AGENT_ENCRYPTION_KEYS: key id "k" appears twice',
    );
  });

  it('refuses both variables at once, and a key file it cannot read', () => {
    expect(configurationError({ AGENT_ENCRYPTION_KEYS: newKeyEntry('a'), AGENT_ENCRYPTION_KEY_FILE: '/x' })).toBe(
      'set AGENT_ENCRYPTION_KEYS or AGENT_ENCRYPTION_KEY_FILE, not both',
    );
    expect(configurationError({ AGENT_ENCRYPTION_KEY_FILE: '/nonexistent/keys' })).toBe(
      'cannot read AGENT_ENCRYPTION_KEY_FILE /nonexistent/keys: ENOENT',
    );
  });

  it('makes building the data converter fail at start-up on bad keys', () => {
    expect(() => agentDataConverter({ AGENT_ENCRYPTION_KEYS: 'k1:AAAA', AGENT_PAYLOAD_DIR: os.tmpdir() })).toThrow(
      'AGENT_ENCRYPTION_KEYS: key "k1" is 3 bytes; AES-256 needs 32',
    );
  });
});
