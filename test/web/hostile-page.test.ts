import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import { HttpAgent } from '@ag-ui/client';
import { launchBrowser, type Browser } from '../support/browser';
import { agUiBody, attackFrom, chatBody, startHostileSite } from '../support/hostile-site';
import { spawnCli } from '../support/cli';
import { openaiReply } from '../support/fake-model-server';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { chat, newChatId, serveHandler, textOf, userMessage, type ServedHandler } from './chat-client';

// A hostile web page (issue 29, item 1): a page of another origin that the user happens to visit makes the browser
// post to `agent serve` and to the handlers as browsers let any page do without asking first (fetch in no-cors mode
// with a text/plain body, and a form), and a page whose name was rebound to 127.0.0.1 (DNS rebinding) asks with its
// own Host. Nothing may run: the fake model server must receive no request, and no session may start. The same
// endpoints then answer their own clients (DefaultChatTransport, HttpAgent), so the refusals are not an outage.

const bed = useTestBed();
jest.setTimeout(240_000);

let browser: Browser | undefined;
let hostile: { server: http.Server; origin: string } | undefined;
let serve: ChildProcess | undefined;
let handler: ServedHandler | undefined;
afterAll(async () => {
  await browser?.close();
  await handler?.close();
  hostile?.server.closeAllConnections();
  await new Promise((resolve) => (hostile ? hostile.server.close(resolve) : resolve(undefined)));
  if (serve && serve.exitCode === null) {
    serve.kill('SIGINT');
    await new Promise((resolve) => serve!.once('exit', resolve));
  }
});

/** A request as a browser sends it after DNS rebinding: the server's address, the attacker's name in Host. */
function rebound(base: string, method: string, pathname: string, body?: string): Promise<{ status: number; error: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: hostname,
        port,
        method,
        path: pathname,
        headers: {
          host: `attacker.example:${port}`,
          // Same-origin in the browser's eyes: the page is attacker.example's, and so is the address it posts to.
          origin: `http://attacker.example:${port}`,
          'x-user': 'alice',
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode!, error: (JSON.parse(text) as { error: string }).error }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

beforeAll(async () => {
  hostile = await startHostileSite();
  browser = await launchBrowser();
});

it('agent serve: a hostile page cannot make it run anything, nor can a rebound name; its own clients still can', async () => {
  serve = spawnCli(
    ['serve', '--port', '0', '--model', 'openai:gpt-4o-mini', '--workspace', bed.workspace, '--static', bed.workspace],
    { ...bed.server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('hostile-serve') },
    { stdin: 'ignore' },
  );
  let stderr = '';
  serve.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const api = await waitFor('agent serve listening', () => /serving (http:\/\/127\.0\.0\.1:\d+)\/api\/chat/.exec(stderr)?.[1], {
    timeoutMs: 90_000,
  });
  const id = newChatId();
  const statuses = await attackFrom(browser!.page, hostile!.origin, api, id);
  expect(statuses).toEqual({
    'no-cors POST /api/chat': 403,
    'no-cors POST /api/ag-ui': 403,
    [`no-cors POST /api/chat/${id}/stop`]: 403,
    'form POST /api/chat': 403,
  });

  // DNS rebinding: every route, reading included, answers only to the names agent serve was bound to.
  const port = new URL(api).port;
  for (const [method, pathname, body] of [
    ['POST', '/api/chat', chatBody(id, 'read ~/.ssh/id_rsa')],
    ['POST', '/api/ag-ui', agUiBody(id, 'read ~/.ssh/id_rsa')],
    ['GET', `/api/chat/${id}`, undefined],
  ] as const) {
    expect(await rebound(api, method, pathname, body)).toEqual({
      status: 403,
      error: expect.stringContaining(`does not answer to the name "attacker.example:${port}"`),
    });
  }
  // Nothing ran: no model call, no session under either id.
  expect(bed.server.requests).toHaveLength(0);
  for (const chatId of [id, `${id}-form`]) expect((await fetch(`${api}/api/chat/${chatId}`)).status).toBe(404);

  // The page agent serve serves may post JSON; a text/plain body is refused even from it (415).
  await browser!.page.goto(`${api}/`);
  const ownPage = await browser!.page.evaluate(async (url) => {
    const response = await fetch(url, { method: 'POST', body: '{}' });
    return { status: response.status, error: ((await response.json()) as { error: string }).error };
  }, `${api}/api/chat`);
  expect(ownPage).toEqual({ status: 415, error: 'POST a JSON body, with Content-Type: application/json' });

  // Its own clients: useChat's transport and an AG-UI HttpAgent, by the names it was bound to.
  bed.server.enqueue(openaiReply({ content: 'Served to its own client.' }), openaiReply({ content: 'And to AG-UI.' }));
  expect(textOf((await chat(`${api}/api/chat`, 'local', id, [userMessage('hello')])).message)).toBe('Served to its own client.');
  const agent = new HttpAgent({ url: `${api}/api/ag-ui`, threadId: newChatId() });
  agent.messages = [{ id: 'u1', role: 'user', content: 'hello from AG-UI' }];
  const { result } = await agent.runAgent();
  expect(result).toMatchObject({ answer: 'And to AG-UI.' });
  expect(bed.server.requests).toHaveLength(2);
  expect(bed.server.refusals).toEqual([]);
});

it('the handlers in an app are as safe by default: no other origin, no rebound name, JSON only', async () => {
  handler = await serveHandler({
    client: bed.environment.client,
    taskQueue: uniqueTaskQueue('hostile-handler'),
    authorize: () => 'alice',
    input: { model: 'openai:gpt-4o-mini', tools: ['read_file'], workspace: bed.workspace },
  });
  const id = newChatId();
  const statuses = await attackFrom(browser!.page, hostile!.origin, handler.base, id);
  expect(Object.values(statuses)).toEqual([403, 403, 403, 403]);
  const port = new URL(handler.base).port;
  expect(await rebound(handler.base, 'POST', '/api/chat', chatBody(id, 'hi'))).toEqual({
    status: 403,
    error: expect.stringContaining(`does not answer to the name "attacker.example:${port}"`),
  });
  expect(await rebound(handler.base, 'GET', `/api/chat/${id}`)).toMatchObject({ status: 403 });
  expect(bed.server.requests).toHaveLength(0);
  // allowedOrigins and allowedHosts open exactly what they name: that page may call it, and read the answer (CORS).
  const open = await serveHandler({
    client: bed.environment.client,
    taskQueue: uniqueTaskQueue('hostile-handler'),
    authorize: () => 'alice',
    input: { model: 'openai:gpt-4o-mini', workspace: bed.workspace },
    allowedOrigins: [hostile!.origin],
  });
  try {
    await browser!.page.goto(`${hostile!.origin}/`);
    const read = await browser!.page.evaluate(async (url) => {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      return { status: response.status, error: ((await response.json()) as { error: string }).error };
    }, open.api);
    // Through the preflight and the origin check, to the request's own validation: the page reads the 400.
    expect(read).toEqual({ status: 400, error: 'the chat id must be 1 to 128 letters, digits, "-" or "_"' });
  } finally {
    await open.close();
  }
  expect(bed.server.requests).toHaveLength(0);
});
