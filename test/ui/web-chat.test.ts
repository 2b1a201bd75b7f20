import { execFile } from 'node:child_process';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { createChatHandler, toNodeListener } from 'durable-agent/web';
import { serveStatic } from '../../web/static-files';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from '../support/browser';
import { pdfBytes, pngBytes } from '../support/attachment-files';
import { openaiReply, type FakeStep } from '../support/fake-model-server';
import { scriptByPrompt } from '../support/script-by-prompt';
import { killSpawnedWorkers, spawnWorker, type SpawnedWorker } from '../support/spawned-worker';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { fileExists } from '../support/workspace';
import { statusQuery } from '../../workflows/definitions';

// The example chat page (examples/web-chat, built into dist/web-chat) in headless chromium, against the chat handler
// served with the page, a worker in a process of its own (so that it can be killed) and the strict fake model. Each
// test is one person's conversation; the model's answers are scripted by the conversation's first message.
// Screenshots land in test-output/web-chat/.

jest.setTimeout(240_000);

const bed = useTestBed();
const root = path.join(__dirname, '..', '..');
const pageDirectory = path.join(root, 'dist', 'web-chat');
const screenshots = path.join(root, 'test-output', 'web-chat');
const taskQueue = uniqueTaskQueue('web-chat');
// The worker reads the attachments the handler stores here: both use the test run's stores (test/support/test-directories.ts).
const storeEnv = { AGENT_PAYLOAD_DIR: process.env.AGENT_PAYLOAD_DIR, AGENT_TRANSCRIPT_DIR: process.env.AGENT_TRANSCRIPT_DIR };
const startWorker = (identity: string) =>
  spawnWorker({
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    taskQueue,
    identity,
    env: { ...bed.server.providerEnv, ...storeEnv },
  });

let browser: Browser;
let worker: SpawnedWorker;
let server: http.Server;
let base: string;
let scripts: Record<string, FakeStep[]>;

const words = (count: number, prefix: string) => Array.from({ length: count }, (_, index) => `${prefix}${index}`).join(' ');
const streamed = (content: string, intervalMs = 50): FakeStep => ({ ...openaiReply({ content }), stream: { intervalMs } });

/** Builds the page when its sources are newer than the build (npm run build:web), so the test never runs a stale page. */
async function buildPageIfStale(): Promise<void> {
  const built = await stat(path.join(pageDirectory, 'index.html')).catch(() => undefined);
  const sources = path.join(root, 'examples', 'web-chat');
  const files = (await readdir(sources, { recursive: true })).filter((file) => !file.startsWith('node_modules'));
  const newest = Math.max(...(await Promise.all(files.map(async (file) => (await stat(path.join(sources, file))).mtimeMs))));
  if (built && built.mtimeMs >= newest) return;
  await promisify(execFile)('npm', ['run', 'build:web'], { cwd: root });
}

/** The person of a request: the `user` cookie the test sets, as an app's own sign-in would. */
function userOf(request: Request): string | undefined {
  const cookie = request.headers.get('cookie') ?? '';
  return /(?:^|;\s*)user=(\w+)/.exec(cookie)?.[1];
}

beforeAll(async () => {
  browser = await launchBrowser();
  await buildPageIfStale();
  worker = await startWorker('web-chat-worker-1');
  const handler = createChatHandler({
    client: bed.environment.client,
    taskQueue,
    authorize: userOf,
    input: {
      model: 'openai:gpt-4o-mini',
      tools: ['write_file', 'read_file'],
      workspace: bed.workspace,
      approval: { tools: ['write_file'], skip: false, timeoutSeconds: 600 },
    },
  });
  // The page and the handler from one origin, as `agent serve` serves them.
  const pageAndApi = async (request: Request) =>
    new URL(request.url).pathname.startsWith('/api/')
      ? handler(request)
      : ((await serveStatic(request, pageDirectory)) ?? new Response('not found', { status: 404 }));
  server = http.createServer(toNodeListener(pageAndApi));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

beforeEach(() => {
  scripts = {};
  scriptByPrompt(bed.server, scripts);
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await killSpawnedWorkers();
});

async function signInAs(user: string): Promise<void> {
  const context = browser.page.context();
  await context.clearCookies();
  await context.addCookies([{ name: 'user', value: user, url: base }]);
}

async function openNewChat(user = 'alice'): Promise<void> {
  await signInAs(user);
  await browser.page.goto(`${base}/`);
  await browser.page.getByLabel('Message').waitFor();
}

async function send(text: string): Promise<void> {
  await browser.page.getByLabel('Message').fill(text);
  await browser.page.getByRole('button', { name: 'Send' }).click();
}

/** All the agent's text on the page, as a person reads it. */
async function agentText(): Promise<string> {
  const texts = await browser.page.locator('li.message.assistant [data-testid="text"]').allInnerTexts();
  return texts.join('\n');
}

async function shot(name: string): Promise<void> {
  await browser.page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });
}

const occurrences = (text: string, part: string) => text.split(part).length - 1;

it('streams the answer in as the model writes it', async () => {
  const answer = words(60, 'stream');
  scripts['Tell me sixty words'] = [streamed(answer, 60)];
  await openNewChat();
  await send('Tell me sixty words');
  const partial = await waitFor('part of the answer on the page', async () => {
    const text = await agentText();
    return text.length > 0 && text.length < answer.length && text;
  });
  expect(answer.startsWith(partial.trim())).toBe(true);
  await shot('streaming');
  await waitFor('the whole answer', async () => (await agentText()).includes(answer), { timeoutMs: 60_000 });
  expect(occurrences(await agentText(), 'stream0 ')).toBe(1);
  await shot('answered');
});

it('offers Steer while a turn runs: the steering message joins the turn, shown where it joined, answered once', async () => {
  const prompt = 'Read alpha.txt for me';
  let answerFirstCall!: () => void;
  const firstCall = new Promise<void>((resolve) => (answerFirstCall = resolve));
  scripts[prompt] = [
    {
      gate: firstCall,
      then: openaiReply({ toolCalls: [{ id: 'call_a', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
    },
    openaiReply({ content: 'You steered me to beta.txt, which is not here; alpha.txt says alpha.' }),
  ];
  await writeFile(path.join(bed.workspace, 'alpha.txt'), 'alpha');
  await openNewChat();
  await send(prompt);
  await waitFor('the first model call under way', () => bed.server.requests.length === 1, { timeoutMs: 60_000 });
  // While the turn runs the page offers Steer beside Stop; Send is gone.
  const steerButton = browser.page.getByRole('button', { name: 'Steer' });
  await steerButton.waitFor();
  expect(await browser.page.getByRole('button', { name: 'Send' }).count()).toBe(0);
  await browser.page.getByLabel('Message').fill('Not that one: read beta.txt.');
  await steerButton.click();
  const chatId = await browser.page.locator('.chat-id').innerText();
  const session = bed.environment.client.workflow.getHandle(`chat-${chatId}`);
  await waitFor('the steering message taken in', async () => (await session.query(statusQuery)).queuedMessages === 1, {
    timeoutMs: 60_000,
  });
  await shot('steering');
  answerFirstCall();
  const answer = 'You steered me to beta.txt, which is not here; alpha.txt says alpha.';
  await waitFor('the answer', async () => (await agentText()).includes(answer), { timeoutMs: 60_000 });
  await waitFor('the conversation as the server has it', async () => {
    const roles = await browser.page
      .locator('li.message')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-role')));
    return roles.join(',') === 'user,assistant,user,assistant';
  });
  await shot('steered');
  // The person's words after the tool call, the answer after them, each once; the model got the result, then the words.
  const texts = await browser.page.locator('li.message').allInnerTexts();
  expect(texts[1]).toContain('read_file');
  expect(texts[2]).toContain('Not that one: read beta.txt.');
  expect(texts[3]).toContain(answer);
  expect(occurrences(texts.join('\n'), answer)).toBe(1);
  expect(bed.server.requests[1].body.messages.slice(-2)).toEqual([
    { role: 'tool', tool_call_id: 'call_a', content: 'alpha' },
    { role: 'user', content: 'Not that one: read beta.txt.' },
  ]);
});

it('asks before each write: an approved write is on disk, a denied one is not; cards show arguments, thinking its text', async () => {
  const prompt = 'Write the two notes';
  const thought = 'THOUGHT: the kept note goes first.';
  scripts[prompt] = [
    openaiReply({
      content: 'First the kept note.',
      // An OpenAI-compatible server's reasoning_content: the model's thinking, shown collapsed.
      reasoningContent: thought,
      toolCalls: [{ id: 'call_keep', name: 'write_file', arguments: { path: 'kept.txt', content: 'KEEP ME' } }],
    }),
    openaiReply({
      content: 'Now the other one.',
      toolCalls: [{ id: 'call_drop', name: 'write_file', arguments: { path: 'dropped.txt', content: 'DROP ME' } }],
    }),
    openaiReply({ content: 'Wrote kept.txt; you denied dropped.txt.' }),
  ];
  await openNewChat();
  await send(prompt);
  const approval = browser.page.getByTestId('approval');
  await approval.waitFor({ timeout: 60_000 });
  // The person sees what will really run: the path and the content.
  expect(await approval.getByTestId('approval-description').innerText()).toContain('kept.txt');
  // While the call waits, the page offers no Send (a message then would deny the call: docs/web.md) and says what to do.
  const sendButton = browser.page.getByRole('button', { name: 'Send' });
  await browser.page.getByLabel('Message').fill('are you still there?');
  await waitFor('Send offered, disabled', async () => (await sendButton.count()) === 1 && (await sendButton.isDisabled()));
  await browser.page.getByLabel('Message').press('Enter');
  expect(await browser.page.getByLabel('Message').getAttribute('placeholder')).toMatch(
    /^Approve or deny the tool call above first/,
  );
  await browser.page.getByLabel('Message').fill('');
  await shot('approval');
  await approval.getByRole('button', { name: 'Approve' }).click();
  await waitFor(
    'the second approval',
    async () =>
      (await browser.page.getByTestId('approval-description').allInnerTexts()).some((text) => text.includes('dropped.txt')),
    {
      timeoutMs: 60_000,
    },
  );
  await browser.page.getByTestId('approval').getByRole('button', { name: 'Deny' }).click();
  await waitFor('the final answer', async () => (await agentText()).includes('you denied dropped.txt'), { timeoutMs: 60_000 });
  await shot('approved-and-denied');
  expect(await readFile(path.join(bed.workspace, 'kept.txt'), 'utf8')).toBe('KEEP ME');
  expect(await fileExists(path.join(bed.workspace, 'dropped.txt'))).toBe(false);
  expect(JSON.stringify(bed.server.requests.map((request) => request.body))).not.toContain('are you still there?');
  const cards = await browser.page
    .getByTestId('tool-card')
    .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-state')));
  expect(cards).toEqual(['output-available', 'output-denied']);

  // The card shows the arguments the model sent (collapsed under "Arguments"), the thinking its text (collapsed).
  const firstCard = browser.page.getByTestId('tool-card').first();
  await firstCard.getByTestId('tool-input').locator('summary').click();
  expect(JSON.parse(await firstCard.getByTestId('tool-input').locator('pre').innerText())).toEqual({
    path: 'kept.txt',
    content: 'KEEP ME',
  });
  const thinking = browser.page.getByTestId('thinking').first();
  expect(await thinking.locator('.thinking-text').isVisible()).toBe(false);
  await thinking.locator('summary').click();
  expect(await thinking.locator('.thinking-text').innerText()).toBe(thought);
  await shot('tool-arguments-and-thinking');
});

it('stops a long answer, and the session answers the next message', async () => {
  const prompt = 'Talk for a long time';
  scripts[prompt] = [streamed(words(400, 'long'), 100), openaiReply({ content: 'AFTER-STOP here I am again' })];
  await openNewChat();
  await send(prompt);
  await waitFor('the long answer to start', async () => (await agentText()).includes('long3 '), { timeoutMs: 60_000 });
  await browser.page.getByRole('button', { name: 'Stop' }).click();
  // The model call itself was cancelled, not only this page's stream.
  await waitFor(
    'the model call to be abandoned',
    () => bed.server.requests.some((request) => request.abandonedAt !== undefined),
    {
      timeoutMs: 60_000,
    },
  );
  await browser.page.getByRole('button', { name: 'Send' }).waitFor({ timeout: 60_000 });
  await shot('stopped');
  await send('Are you still there?');
  await waitFor('the next answer', async () => (await agentText()).includes('AFTER-STOP'), { timeoutMs: 60_000 });
  expect(await agentText()).not.toContain('long399');
});

it('takes a pasted image and a picked PDF: a thumbnail and a chip, both at the model, both again after a reload; the PDF only downloads', async () => {
  const prompt = 'What is in this picture?';
  scripts[prompt] = [openaiReply({ content: 'PICTURE-ANSWER: grey noise.' })];
  const png = pngBytes(8_000, 5);
  const pdf = pdfBytes();
  await openNewChat();
  // The image pasted into the message box, as a screenshot is; the PDF picked with the file input.
  await browser.page.getByLabel('Message').evaluate((box, base64) => {
    const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
    const clipboard = new DataTransfer();
    clipboard.items.add(new File([bytes], 'noise.png', { type: 'image/png' }));
    box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: clipboard, bubbles: true, cancelable: true }));
  }, png.toString('base64'));
  await browser.page.locator('input[type="file"]').setInputFiles({ name: 'scan.pdf', mimeType: 'application/pdf', buffer: pdf });
  expect(await browser.page.getByTestId('pending-files').innerText()).toMatch(/noise\.png[\s\S]*scan\.pdf/);
  await send(prompt);
  await waitFor('the answer', async () => (await agentText()).includes('PICTURE-ANSWER'), { timeoutMs: 60_000 });
  const thumbnail = browser.page.locator('li.message.user [data-testid="attachment-thumbnail"]');
  /** The thumbnail's source and width once the browser has decoded it (0 for a broken image). */
  const loaded = () =>
    thumbnail.evaluate((image: HTMLImageElement) => (image.complete ? { src: image.src, width: image.naturalWidth } : undefined));
  expect(await waitFor('the thumbnail decoded', loaded)).toEqual({
    src: expect.stringMatching(/^data:image\/png;base64,/),
    width: 1024,
  });
  // The model got the very bytes, as an image part and a file part beside the text.
  const sent = bed.server.requests.at(-1)!.body.messages.at(-1).content;
  expect(sent).toContainEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } });
  expect(JSON.stringify(sent)).toContain(pdf.toString('base64'));
  const chip = browser.page.locator('li.message.user [data-testid="attachment-file"]');
  expect(await chip.innerText()).toMatch(new RegExp(`scan\\.pdf\\s+application/pdf · ${pdf.length} B`));
  await shot('attached-image');

  // Read back from the server after a reload: the thumbnail is the chat's attachment route, and it decodes.
  await browser.page.reload();
  await waitFor('the conversation after the reload', async () => (await agentText()).includes('PICTURE-ANSWER'));
  expect(await waitFor('the thumbnail decoded after the reload', loaded)).toEqual({
    src: expect.stringMatching(new RegExp(`^${base}/api/chat/[\\w-]+/attachments/[0-9a-f]{64}$`)),
    width: 1024,
  });
  expect(await thumbnail.getAttribute('alt')).toBe('noise.png');
  expect(await chip.innerText()).toMatch(new RegExp(`scan\\.pdf\\s+application/pdf · ${pdf.length} B`));
  await shot('attached-image-after-reload');
  expect(bed.server.requests).toHaveLength(1);

  // Opened on its own, the PDF is a download, never a document of our origin (Content-Disposition: attachment).
  const pdfUrl = new URL((await chip.getAttribute('href'))!, base).href;
  const tab = await browser.page.context().newPage();
  try {
    const download = tab.waitForEvent('download');
    await tab.goto(pdfUrl).catch(() => undefined);
    expect((await download).suggestedFilename()).toBe('scan.pdf');
    expect(tab.url()).not.toBe(pdfUrl);
  } finally {
    await tab.close();
  }
});

it('shows an answer exactly once after a reload in the middle of it', async () => {
  const prompt = 'Answer while I reload';
  const answer = words(80, 'reload');
  scripts[prompt] = [streamed(answer, 60)];
  await openNewChat();
  await send(prompt);
  await waitFor('part of the answer', async () => (await agentText()).includes('reload2 '), { timeoutMs: 60_000 });
  await browser.page.reload();
  await waitFor('the whole answer after the reload', async () => (await agentText()).includes(answer), { timeoutMs: 60_000 });
  await shot('after-reload');
  const text = await agentText();
  expect(occurrences(text, 'reload0 ')).toBe(1);
  expect(occurrences(text, 'reload79')).toBe(1);
  // The person's message is there once too, restored from the session.
  expect(await browser.page.locator('li.message.user').allInnerTexts()).toHaveLength(1);
});

it('delivers the answer when the worker dies in the middle of it', async () => {
  const prompt = 'Answer through a crash';
  const answer = words(40, 'crash');
  // Attempt 1: a few words, then the worker dies; attempt 2 (after the heartbeat timeout) writes the whole answer.
  scripts[prompt] = [{ ...openaiReply({ content: answer }), stream: { intervalMs: 100, stopAfter: 6 } }, streamed(answer, 30)];
  await openNewChat();
  await send(prompt);
  await waitFor('part of the answer', async () => (await agentText()).includes('crash1 '), { timeoutMs: 60_000 });
  // The only worker dies with the model call in flight; another takes the retry after the heartbeat timeout.
  await worker.kill();
  worker = await startWorker('web-chat-worker-2');
  await waitFor('the whole answer from the other worker', async () => (await agentText()).includes(answer), {
    timeoutMs: 150_000,
  });
  await shot('after-worker-crash');
  expect(occurrences(await agentText(), 'crash0 ')).toBe(1);
});

it("does not open one person's chat for another", async () => {
  scripts['A private question'] = [openaiReply({ content: 'PRIVATE-ANSWER for alice only' })];
  await openNewChat('alice');
  await send('A private question');
  await waitFor('the answer', async () => (await agentText()).includes('PRIVATE-ANSWER'), { timeoutMs: 60_000 });
  const chatUrl = browser.page.url();
  const chatId = new URL(chatUrl).searchParams.get('chat')!;

  await signInAs('bob');
  await browser.page.goto(chatUrl);
  await browser.page.getByTestId('chat-missing').waitFor();
  expect(await browser.page.content()).not.toContain('PRIVATE-ANSWER');
  await shot('other-user');
  // Nor through the API: reading, resuming and posting all answer 404, as for a chat that does not exist.
  const asBob = { cookie: 'user=bob' };
  expect((await fetch(`${base}/api/chat/${chatId}`, { headers: asBob })).status).toBe(404);
  expect((await fetch(`${base}/api/chat/${chatId}/stream`, { headers: asBob })).status).toBe(404);
  const post = await fetch(`${base}/api/chat`, {
    method: 'POST',
    headers: { ...asBob, 'content-type': 'application/json' },
    body: JSON.stringify({ id: chatId, messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'let me in' }] }] }),
  });
  expect(post.status).toBe(404);
  expect(bed.server.requests.some((request) => JSON.stringify(request.body).includes('let me in'))).toBe(false);
});

it('shows a message sent from another tab, and its whole answer once, when that tab comes to the front', async () => {
  const prompt = 'Two tabs, first message';
  const second = 'Second message, from tab A';
  const answer = words(60, 'tabs');
  // The script follows the conversation's first message: its first answer, then the answer to the second message.
  scripts[prompt] = [openaiReply({ content: 'FIRST-ANSWER in both tabs' }), streamed(answer, 60)];
  await openNewChat('alice');
  const tabA = browser.page;
  await send(prompt);
  await waitFor('the first answer in tab A', async () => (await agentText()).includes('FIRST-ANSWER'), { timeoutMs: 60_000 });

  // Tab B: the same person (the context's cookies) on the same chat.
  const tabB = await tabA.context().newPage();
  try {
    const textIn = async (page: Page) =>
      (await page.locator('li.message.assistant [data-testid="text"]').allInnerTexts()).join('\n');
    const userMessagesIn = (page: Page) => page.locator('li.message.user').allInnerTexts();
    await tabB.goto(tabA.url());
    await waitFor('the first answer in tab B', async () => (await textIn(tabB)).includes('FIRST-ANSWER'), { timeoutMs: 60_000 });

    await tabA.bringToFront();
    await send(second);
    await waitFor('part of the second answer in tab A', async () => (await textIn(tabA)).includes('tabs2 '), {
      timeoutMs: 60_000,
    });
    // Nothing pushes to tab B: until it comes to the front it shows what it loaded.
    expect(await userMessagesIn(tabB)).toHaveLength(1);

    // Tab B comes to the front, as a person switching tabs makes it (headless chromium does not fire focus by itself).
    await tabB.bringToFront();
    await tabB.evaluate(() => window.dispatchEvent(new Event('focus')));
    await waitFor('the whole second answer in tab B', async () => (await textIn(tabB)).includes(answer), { timeoutMs: 60_000 });
    await tabB.screenshot({ path: path.join(screenshots, 'other-tab.png'), fullPage: true });
    await waitFor('the whole second answer in tab A', async () => (await textIn(tabA)).includes(answer), { timeoutMs: 60_000 });

    for (const page of [tabA, tabB]) {
      const users = await userMessagesIn(page);
      expect(users).toHaveLength(2);
      expect(users[0]).toContain(prompt);
      expect(users[1]).toContain(second);
      const text = await textIn(page);
      expect(occurrences(text, 'FIRST-ANSWER')).toBe(1);
      expect(occurrences(text, 'tabs0 ')).toBe(1);
      expect(occurrences(text, 'tabs59')).toBe(1);
    }
    // One model call per message: bringing a tab to the front asks the session, it never sends anything again.
    expect(bed.server.requests).toHaveLength(2);
  } finally {
    await tabB.close();
  }
});
