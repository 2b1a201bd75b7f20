import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { launchBrowser, type Browser } from '../support/browser';
import { exampleApp, type StartedScript } from '../support/example-app';
import { attackFrom, startHostileSite } from '../support/hostile-site';
import { openaiReply } from '../support/fake-model-server';
import { freePort } from '../../cli/dev-server/free-port';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';

// examples/web-app is docs/web.md's walk-through done: an empty Vite + React app made a durable chat with only the
// published exports (durable-agent, durable-agent/web), its own worker and its own server. Installed as a packed copy
// of the library (as from a registry), built with its own scripts, and used in Chromium as a person would.

const bed = useTestBed();
const app = exampleApp('web-app');
const screenshots = path.join(__dirname, '..', '..', 'test-output', 'web-app');
jest.setTimeout(600_000);

let browser: Browser | undefined;
const started: StartedScript[] = [];

beforeAll(() => app.install());
afterAll(async () => {
  await browser?.close();
  await Promise.all(started.map((script) => script.stop()));
});

it('installs as a library, builds, and answers in the browser from its own worker and server, once after a reload', async () => {
  const build = await app.npm(['run', '-s', 'build']);
  expect({ code: build.code, output: `${build.stdout}${build.stderr}`.replace(/npm warn[^\n]*\n/g, '') }).toEqual({
    code: 0,
    output: '',
  });

  const answer = 'A durable hello from the example app.';
  bed.server.respondWith(() => ({ ...openaiReply({ content: answer }), stream: { intervalMs: 20 } }));
  const port = await freePort();
  const env = {
    ...bed.server.providerEnv,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
    AGENT_TASK_QUEUE: uniqueTaskQueue('web-app'),
    AGENT_WORKSPACE_ROOT: bed.workspace,
    CHAT_WORKSPACE: bed.workspace,
    PORT: String(port),
  };
  const worker = app.start('worker', env);
  const server = app.start('start', env);
  started.push(worker, server);
  await waitFor('the worker to poll', () => worker.output().includes('worker polling'), { timeoutMs: 120_000 });
  await waitFor('the server to listen', () => server.output().includes('chat at'), { timeoutMs: 60_000 });

  browser = await launchBrowser();
  const page = browser.page;
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.getByLabel('Message').fill('Say hello');
  await page.getByRole('button', { name: 'Send' }).click();
  const agent = page.locator('p[data-role="assistant"]');
  await waitFor('the answer on the page', async () => (await agent.allInnerTexts()).join('\n').includes(answer), {
    timeoutMs: 60_000,
  });
  await mkdir(screenshots, { recursive: true });
  await page.screenshot({ path: path.join(screenshots, 'answered.png'), fullPage: true });
  // The model got the person's message through the real provider client.
  expect(bed.server.requests.at(-1)?.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'Say hello' });

  // The session is durable and named in the address: a reload shows the conversation, the answer once.
  expect(page.url()).toMatch(/\?chat=[0-9a-f-]{36}$/);
  await page.reload();
  await page.getByLabel('Message').waitFor();
  await waitFor('the conversation after the reload', async () => (await agent.count()) > 0);
  expect(await page.locator('p[data-role="user"]').allInnerTexts()).toEqual(['You: Say hello']);
  expect(await agent.allInnerTexts()).toEqual([`Agent: ${answer}`]);
  await page.screenshot({ path: path.join(screenshots, 'reloaded.png'), fullPage: true });

  // The installed handler, mounted with no security options, is safe by default: a page of another site posting as
  // any page may (no-cors text/plain, a form) is refused, and nothing reaches the model (issue 29).
  const hostile = await startHostileSite();
  try {
    const modelCalls = bed.server.requests.length;
    const statuses = await attackFrom(page, hostile.origin, `http://127.0.0.1:${port}`, 'hostilechat');
    expect(Object.values(statuses)).toEqual([403, 403, 403, 403]);
    expect(bed.server.requests).toHaveLength(modelCalls);
    expect((await fetch(`http://127.0.0.1:${port}/api/chat/hostilechat`)).status).toBe(404);
  } finally {
    hostile.server.closeAllConnections();
    await new Promise((resolve) => hostile.server.close(resolve));
  }
});
