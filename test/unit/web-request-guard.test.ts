import { hostAllowed, isLoopback, originAllowed } from '../../serve/http/origins';
import { refusal, withCors } from '../../serve/http/request-guard';

// The checks every web endpoint's request passes first (serve/http/request-guard.ts over serve/http/origins.ts), on requests shaped
// as browsers send them. The end-to-end refusals (Chromium, DNS rebinding, the real clients) are in test/web/.

const post = (headers: Record<string, string>, url = 'http://127.0.0.1:3000/api/chat') =>
  new Request(url, { method: 'POST', headers: { host: '127.0.0.1:3000', ...headers }, body: '{}' });

it("serves its own page's requests and those with no Origin (curl, a server), JSON only", () => {
  expect(refusal(post({ 'content-type': 'application/json', origin: 'http://127.0.0.1:3000' }), {})).toBeUndefined();
  expect(refusal(post({ 'content-type': 'application/json; charset=utf-8' }), {})).toBeUndefined();
  // The bodies a page of another site can make a browser send without asking first, and none at all.
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
    expect(refusal(post({ 'content-type': type }), {})?.status).toBe(415);
  }
  expect(refusal(new Request('http://127.0.0.1:3000/api/chat/x/stop', { method: 'POST' }), {})?.status).toBe(415);
});

it('refuses a page of another origin (403, in words), unless allowedOrigins names it, and lets the named one read', async () => {
  const foreign = post({ 'content-type': 'application/json', origin: 'https://evil.example' });
  const refused = refusal(foreign, {});
  expect(refused?.status).toBe(403);
  expect(((await refused!.json()) as { error: string }).error).toMatch(/https:\/\/evil\.example may not call this endpoint/);
  // Same host, another port, is another origin; `null` (a sandboxed frame) is refused too.
  expect(refusal(post({ 'content-type': 'application/json', origin: 'http://127.0.0.1:4000' }), {})?.status).toBe(403);
  expect(refusal(post({ 'content-type': 'application/json', origin: 'null' }), {})?.status).toBe(403);
  const app = post({ 'content-type': 'application/json', origin: 'https://App.example/' });
  expect(refusal(app, { allowedOrigins: ['https://app.example'] })).toBeUndefined();
  expect(withCors(new Response('ok'), app).headers.get('access-control-allow-origin')).toBe('https://App.example/');
  const preflight = new Request('http://127.0.0.1:3000/api/chat', {
    method: 'OPTIONS',
    headers: { host: '127.0.0.1:3000', origin: 'https://app.example', 'access-control-request-headers': 'content-type' },
  });
  expect(refusal(preflight, { allowedOrigins: ['https://app.example'] })?.status).toBe(204);
  expect(refusal(preflight, {})?.status).toBe(403);
});

it('refuses a Host it does not answer to (DNS rebinding): loopback names and addresses by default, a list replaces them', () => {
  const rebound = post({ 'content-type': 'application/json', host: 'attacker.example:3000' });
  expect(refusal(rebound, {})?.status).toBe(403);
  for (const host of ['localhost:3000', '127.0.0.1', '[::1]:3000', '192.168.1.20:3000'])
    expect(hostAllowed(host, [], true)).toBe(true);
  expect(hostAllowed('attacker.example:3000', [], true)).toBe(false);
  expect(hostAllowed('localhost.attacker.example', [], true)).toBe(false);
  // A list: names on any port, a name with its port, a leading dot for the names under it; `true` for any.
  const list = ['chat.example.com', 'localhost:3000', '.team.example', '[::1]:3000'];
  expect(hostAllowed('chat.example.com:8443', list, false)).toBe(true);
  expect(hostAllowed('localhost:3000', list, false)).toBe(true);
  expect(hostAllowed('localhost:3001', list, false)).toBe(false);
  expect(hostAllowed('[::1]:3000', list, false)).toBe(true);
  expect(hostAllowed('a.team.example', list, false)).toBe(true);
  expect(hostAllowed('team.example.evil', list, false)).toBe(false);
  expect(hostAllowed('127.0.0.1:3000', list, false)).toBe(false);
  expect(hostAllowed('anything.example', true, false)).toBe(true);
  expect(hostAllowed('user@chat.example.com', list, false)).toBe(false);
});

it('one origin check for the codec server and the web: none, `*`, or the list (normalized)', () => {
  expect(originAllowed(undefined, [])).toBe(true);
  expect(originAllowed('http://localhost:8233', ['http://localhost:8233/'])).toBe(true);
  expect(originAllowed('http://localhost:8234', ['http://localhost:8233'])).toBe(false);
  expect(originAllowed('https://any.example', ['*'])).toBe(true);
  expect(isLoopback('127.0.0.2')).toBe(true);
  expect(isLoopback('[::1]')).toBe(true);
  expect(isLoopback('0.0.0.0')).toBe(false);
});

it('an empty allowedHosts list is no list: the defaults, not a server that answers no one', () => {
  const request = post({ 'content-type': 'application/json', host: 'localhost:3000' });
  expect(refusal(request, { allowedHosts: [] })).toBeUndefined();
  expect(refusal(post({ 'content-type': 'application/json', host: 'attacker.example' }), { allowedHosts: [] })?.status).toBe(403);
  expect(refusal(request, { allowedHosts: ['chat.example.com'] })?.status).toBe(403);
});
