import { EncryptionCodec } from '../../storage/encryption-codec';
import { parseEncryptionKeys } from '../../storage/encryption-keys';
import { payloadsFromJson, payloadsToJson } from '../../storage/payload-json';
import { runCli } from '../support/cli';
import { startCodecServer, type CodecServerProcess } from '../support/codec-server-process';
import { jsonPayload, newKeyEntry } from '../support/encryption';

// The Temporal codec-server protocol over real HTTP, against `agent codec-server` in a child process.

const uiOrigin = 'http://ui.test:8233';
const token = 'codec-test-token';
const keyEntry = newKeyEntry('k1');
const libraryCodec = new EncryptionCodec(parseEncryptionKeys(keyEntry, 'test'));
const secret = { answer: 'the vault opens at dawn' };

let server: CodecServerProcess;
beforeAll(async () => {
  server = await startCodecServer(['--cors-origin', uiOrigin, '--auth-token', token], { AGENT_ENCRYPTION_KEYS: keyEntry });
});
afterAll(() => server?.stop());

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, 'X-Namespace': 'default', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

it('encodes payloads into AES-GCM ciphertext that the workers and clients decrypt', async () => {
  const response = await post('/encode', payloadsToJson([jsonPayload(secret)]));
  expect(response.status).toBe(200);
  const body = await response.json();
  expect(body.payloads[0].metadata).toEqual({
    encoding: Buffer.from('binary/encrypted').toString('base64'),
    'encryption-key-id': Buffer.from('k1').toString('base64'),
  });
  expect(Buffer.from(body.payloads[0].data, 'base64').toString('latin1')).not.toContain('vault');

  const [decrypted] = await libraryCodec.decode(payloadsFromJson(body));
  expect(JSON.parse(Buffer.from(decrypted.data!).toString())).toEqual(secret);
});

it('decodes what the workers encrypted, under any path prefix (only the last segment counts)', async () => {
  const encrypted = await libraryCodec.encode([jsonPayload(secret), jsonPayload('second')]);
  for (const path of ['/decode', '/default/decode']) {
    const response = await post(path, payloadsToJson(encrypted));
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.payloads).toEqual(payloadsToJson([jsonPayload(secret), jsonPayload('second')]).payloads);
  }
});

it("answers the Web UI origin's CORS preflight and refuses other origins", async () => {
  const preflight = await fetch(`${server.url}/decode`, {
    method: 'OPTIONS',
    headers: {
      Origin: uiOrigin,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type,x-namespace,authorization',
    },
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe(uiOrigin);
  expect(preflight.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
  expect(preflight.headers.get('access-control-allow-headers')).toBe('Content-Type, X-Namespace, Authorization');
  expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');

  const fromUi = await post('/decode', payloadsToJson([]), { Origin: uiOrigin });
  expect(fromUi.status).toBe(200);
  expect(fromUi.headers.get('access-control-allow-origin')).toBe(uiOrigin);

  const elsewhere = await fetch(`${server.url}/decode`, {
    method: 'OPTIONS',
    headers: { Origin: 'http://evil.test', 'Access-Control-Request-Method': 'POST' },
  });
  expect(elsewhere.status).toBe(403);
  expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
  const postElsewhere = await post('/decode', payloadsToJson([]), { Origin: 'http://evil.test' });
  expect(postElsewhere.status).toBe(403);
  await server.printed('refused OPTIONS /decode from origin http://evil.test');
});

it('refuses requests without the bearer token or with a wrong one', async () => {
  const encrypted = payloadsToJson(await libraryCodec.encode([jsonPayload(secret)]));
  const missing = await fetch(`${server.url}/decode`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(encrypted),
  });
  expect(missing.status).toBe(401);
  expect(missing.headers.get('www-authenticate')).toBe('Bearer, Basic realm="durable-agent codec server", charset="UTF-8"');
  expect(await missing.text()).not.toContain('vault');

  const wrong = await post('/decode', encrypted, { Authorization: 'Bearer not-the-token' });
  expect(wrong.status).toBe(401);

  const right = await post('/decode', encrypted);
  expect(right.status).toBe(200);
});

it('takes the token as a Basic password too, which is how a browser signed in at its address sends it', async () => {
  const encrypted = payloadsToJson(await libraryCodec.encode([jsonPayload(secret)]));
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const signedIn = await post('/decode', encrypted, { Authorization: basic('anyone', token) });
  expect(signedIn.status).toBe(200);
  expect((await signedIn.json()).payloads).toEqual(payloadsToJson([jsonPayload(secret)]).payloads);
  expect((await post('/decode', encrypted, { Authorization: basic(token, 'wrong') })).status).toBe(401);

  // Opening the server's address asks the browser for the credentials it will then remember.
  const challenge = await fetch(`${server.url}/`);
  expect(challenge.status).toBe(401);
  expect(challenge.headers.get('www-authenticate')).toBe('Basic realm="durable-agent codec server", charset="UTF-8"');
  const page = await fetch(`${server.url}/`, { headers: { Authorization: basic('me', token) } });
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('Signed in');
});

it('will not listen beyond loopback without a token, unless told that something in front checks callers', async () => {
  for (const args of [
    ['--host', '0.0.0.0'],
    ['--host', '0.0.0.0', '--auth-token', ''],
  ]) {
    const refused = await runCli(['codec-server', '--port', '0', ...args], { AGENT_ENCRYPTION_KEYS: keyEntry });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'error: codec-server would listen on 0.0.0.0 with no token: anyone who reaches that address could decrypt every payload. ' +
        'Set --auth-token (or AGENT_CODEC_AUTH_TOKEN), listen on a loopback address (--host 127.0.0.1), ' +
        'or pass --allow-no-token if something in front of it checks who calls',
    );
  }
  const withToken = await startCodecServer(['--host', '0.0.0.0'], {
    AGENT_ENCRYPTION_KEYS: keyEntry,
    AGENT_CODEC_AUTH_TOKEN: token,
  });
  expect(withToken.stderr()).toContain('token required');
  expect(await withToken.stop()).toBe(0);
  const allowed = await startCodecServer(['--host', '0.0.0.0', '--allow-no-token'], { AGENT_ENCRYPTION_KEYS: keyEntry });
  expect(allowed.stderr()).toContain('no token required');
  expect(await allowed.stop()).toBe(0);
});

it('answers 400 with the key id for a payload of an unknown key, and for a malformed body', async () => {
  const foreign = new EncryptionCodec(parseEncryptionKeys(newKeyEntry('k9'), 'test'));
  const unknownKey = await post('/decode', payloadsToJson(await foreign.encode([jsonPayload(secret)])));
  expect(unknownKey.status).toBe(400);
  expect((await unknownKey.json()).error).toBe(
    'a payload is encrypted with key "k9", which is not among this process\'s keys (k1): add it to AGENT_ENCRYPTION_KEYS',
  );

  const notJson = await post('/decode', '{"payloads": [');
  expect(notJson.status).toBe(400);
  const wrongShape = await post('/encode', { items: [] });
  expect(wrongShape.status).toBe(400);
  expect((await wrongShape.json()).error).toBe('invalid request: the body must be a JSON object {"payloads": [...]}');

  const wrongPath = await post('/transcode', payloadsToJson([]));
  expect(wrongPath.status).toBe(404);
});

it('stops cleanly on SIGTERM and on Ctrl-C', async () => {
  const other = await startCodecServer([], { AGENT_ENCRYPTION_KEYS: keyEntry });
  expect(other.stderr()).toContain('CORS origins: http://localhost:8233, http://127.0.0.1:8233; no token required');
  expect(await other.stop('SIGTERM')).toBe(0);
  const interrupted = await startCodecServer([], { AGENT_ENCRYPTION_KEYS: keyEntry });
  expect(await interrupted.stop('SIGINT')).toBe(0);
});

it('will not start without keys, or with bad key material', async () => {
  const keyless = await runCli(['codec-server', '--port', '0'], {});
  expect(keyless.code).toBe(1);
  expect(keyless.stderr).toContain(
    'codec-server needs the encryption keys: set AGENT_ENCRYPTION_KEYS or AGENT_ENCRYPTION_KEY_FILE',
  );

  const badKey = await runCli(['codec-server', '--port', '0'], { AGENT_ENCRYPTION_KEYS: 'k1:c2hvcnQ=' });
  expect(badKey.code).toBe(1);
  expect(badKey.stderr).toContain('error: AGENT_ENCRYPTION_KEYS: key "k1" is 5 bytes; AES-256 needs 32');
});
