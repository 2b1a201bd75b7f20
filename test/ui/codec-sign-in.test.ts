import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EncryptionCodec } from '../../storage/encryption-codec';
import { parseEncryptionKeys } from '../../storage/encryption-keys';
import { payloadsToJson } from '../../storage/payload-json';
import { launchBrowser, type Browser } from '../support/browser';
import { startCodecServer, type CodecServerProcess } from '../support/codec-server-process';
import { jsonPayload, newKeyEntry } from '../support/encryption';

// docs/production.md tells Web UI users of a codec server with a token to sign in once at its address: the
// browser then sends the token (Basic) with the UI's codec requests, which include credentials. Here a real
// chromium does exactly what the Web UI's code does (a credentialed cross-origin POST to <endpoint>/decode
// with X-Namespace), from a page on another origin, before and after signing in.

const token = 'sign-in-token';
const keyEntry = newKeyEntry('k1');
const libraryCodec = new EncryptionCodec(parseEncryptionKeys(keyEntry, 'test'));

let page: http.Server;
let pageOrigin: string;
let codec: CodecServerProcess;
let browser: Browser;

beforeAll(async () => {
  // The page stands in for the Web UI: any origin other than the codec server's.
  page = http.createServer((_request, response) => response.writeHead(200, { 'Content-Type': 'text/html' }).end('<p>ui</p>'));
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
  codec = await startCodecServer(['--cors-origin', pageOrigin, '--auth-token', token], { AGENT_ENCRYPTION_KEYS: keyEntry });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await codec?.stop();
  await new Promise((resolve) => page?.close(resolve));
});

/** What the Web UI's convertPayloadsWithCodec does with "include credentials" on. */
function decodeFromPage(endpoint: string, body: string): Promise<{ status: number; text: string }> {
  return browser.page.evaluate(
    async ({ endpoint, body }) => {
      const response = await fetch(`${endpoint}/decode`, {
        method: 'POST',
        credentials: 'include',
        headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default' },
        body,
      });
      return { status: response.status, text: await response.text() };
    },
    { endpoint, body },
  );
}

it('a browser signed in at the codec server’s address sends the token with credentialed requests from the UI’s origin', async () => {
  const secret = { answer: 'decrypted in the browser' };
  const body = JSON.stringify(payloadsToJson(await libraryCodec.encode([jsonPayload(secret)])));
  await browser.page.goto(pageOrigin);

  const before = await decodeFromPage(codec.url, body);
  expect(before.status).toBe(401);

  // Signing in: what a person does in the browser's dialog, given here in the address.
  const signIn = await browser.page.goto(codec.url.replace('http://', `http://anyone:${token}@`));
  expect(signIn?.status()).toBe(200);
  expect(await browser.page.textContent('body')).toContain('Signed in');

  await browser.page.goto(pageOrigin);
  const after = await decodeFromPage(codec.url, body);
  expect(after.status).toBe(200);
  expect(after.text).toContain(Buffer.from(JSON.stringify(secret)).toString('base64'));
});
