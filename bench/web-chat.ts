import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client } from '@temporalio/client';
import { DefaultChatTransport, type UIMessage, type UIMessageChunk } from 'ai';
import { createChatHandler, toNodeListener } from '../web';
import { FakeModelServer, openaiReply } from '../test/support/fake-model-server';
import { killSpawnedWorkers, spawnWorker } from '../test/support/spawned-worker';
import { agentDataConverter } from '../storage/data-converter';
import type { Benchmark } from './support/benchmark';
import { formatCount, formatMs, markdownTable } from './support/format';
import { log } from './support/log';
import { percentile } from './support/stats';

// An answer of 40 words, one every 20 ms: the model's first token goes out at once, the rest over ~0.8 s.
const answerWords = 40;
const wordIntervalMs = 20;

interface ChatSample {
  /** The model's first token left the fake server (its send time: it writes the first event as it answers). */
  firstTokenSentAt: number;
  /** The first text delta came out of DefaultChatTransport's stream. */
  firstTextAt: number;
  finishedAt: number;
  startedAt: number;
  error?: string;
}

/**
 * What the web chat adds on top of the run: a real DefaultChatTransport (the `ai` package's, what useChat uses in the
 * browser) in this process, against the chat handler served by node:http in this process, one agent worker in a
 * process of its own, and the model (the strict fake server, streaming). Measures, from the model's first token (the
 * fake server's send time), the first text delta out of the transport; then the same for many chats at
 * once, each a session of its own, on the one worker and the one server process.
 */
export const webChat: Benchmark = {
  name: 'web-chat',
  title: 'Web chat: added latency to the browser transport, and concurrent streaming chats',
  async run({ environment, quick }) {
    const target = await environment.server('project');
    const fake = await FakeModelServer.start();
    const firstTokens = new Map<string, number>();
    const answer = Array.from({ length: answerWords }, (_, index) => `word${index}`).join(' ');
    fake.respondWith((request) => {
      // Each chat's message names it; the reply is written from now on (the first event at once).
      const said = JSON.stringify(request.body?.messages ?? '');
      const chat = /chat-bench-[\w-]+/.exec(said)?.[0];
      if (chat && !firstTokens.has(chat)) firstTokens.set(chat, Date.now());
      return { ...openaiReply({ content: answer }), stream: { intervalMs: wordIntervalMs } };
    });
    const taskQueue = `bench-web-chat-${randomUUID()}`;
    log('web-chat: starting a worker process and the chat handler...');
    await spawnWorker({ address: target.address, taskQueue, identity: 'bench-web-chat', env: fake.providerEnv });
    const client = new Client({
      connection: target.connection,
      namespace: target.namespace,
      dataConverter: agentDataConverter(),
    });
    const handler = createChatHandler({
      client,
      taskQueue,
      authorize: () => 'bench',
      input: { model: 'openai:gpt-4o-mini', tools: [], workspace: environment.workspace },
    });
    const server = http.createServer(toNodeListener(handler));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/chat`;
    const chats: string[] = [];
    const chatOnce = (chat: string) => {
      chats.push(chat);
      return chatThroughTransport(api, chat, firstTokens);
    };

    try {
      const sequential = quick ? 8 : 30;
      log(`web-chat: ${sequential} chats one after the other...`);
      const one: ChatSample[] = [];
      for (let index = 0; index < sequential; index++) one.push(await chatOnce(`chat-bench-seq-${index}-${randomUUID()}`));
      const concurrent = quick ? 50 : 200;
      log(`web-chat: ${concurrent} chats at once...`);
      const startedAt = performance.now();
      const many = await Promise.all(
        Array.from({ length: concurrent }, (_, index) => chatOnce(`chat-bench-par-${index}-${randomUUID()}`)),
      );
      const wallMs = performance.now() - startedAt;
      return {
        details: [
          `A ${answerWords}-word answer streamed by the fake model (a word every ${wordIntervalMs} ms), each chat a new session ` +
            "started by its first message; the client is the ai package's DefaultChatTransport, as useChat uses it. " +
            "From the model's first token (the fake server's send time) to the first text delta out of the transport's stream. The run's model activity gathers text for up to 200 ms before " +
            'publishing it, and a follower polls at most every 200 ms: that is most of what is added.',
          latencyTable([`${sequential} chats, one at a time`, one], [`${concurrent} chats at once`, many], wallMs),
        ],
        targets: [],
      };
    } finally {
      // The sessions would idle for an hour; ended now, so that nothing polls them once the server is gone.
      await Promise.all(
        chats.map((chat) =>
          client.workflow
            .getHandle(`chat-${chat}`)
            .terminate('benchmark over')
            .catch(() => undefined),
        ),
      );
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await killSpawnedWorkers();
      await fake.close();
    }
  },
};

/** One chat's first message through a real DefaultChatTransport: when its first text delta came out of the transport. */
async function chatThroughTransport(api: string, chat: string, firstTokens: Map<string, number>): Promise<ChatSample> {
  const sample: ChatSample = { firstTokenSentAt: NaN, firstTextAt: NaN, finishedAt: NaN, startedAt: Date.now() };
  const transport = new DefaultChatTransport<UIMessage>({ api });
  try {
    const stream = await transport.sendMessages({
      trigger: 'submit-message',
      chatId: chat,
      messageId: undefined,
      messages: [{ id: randomUUID(), role: 'user', parts: [{ type: 'text', text: `${chat}: say forty words` }] }],
      abortSignal: undefined,
    });
    for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) {
      if (chunk.type === 'text-delta' && Number.isNaN(sample.firstTextAt)) sample.firstTextAt = Date.now();
      if (chunk.type === 'error') sample.error = chunk.errorText;
    }
  } catch (error) {
    sample.error = (error as Error).message;
  }
  sample.finishedAt = Date.now();
  sample.firstTokenSentAt = firstTokens.get(chat) ?? NaN;
  if (!sample.error && Number.isNaN(sample.firstTextAt)) sample.error = 'no text arrived';
  return sample;
}

function latencyTable(...rest: [[string, ChatSample[]], [string, ChatSample[]], number]): string {
  const [first, second, wallMs] = rest;
  const rows = [first, second].map(([label, samples]) => {
    const ok = samples.filter((sample) => !sample.error);
    const toText = ok.map((sample) => sample.firstTextAt - sample.firstTokenSentAt);
    const whole = ok.map((sample) => sample.finishedAt - sample.startedAt);
    return [
      label,
      formatMs(percentile(toText, 50)),
      formatMs(percentile(toText, 95)),
      formatMs(percentile(whole, 50)),
      formatMs(percentile(whole, 95)),
      `${formatCount(samples.length - ok.length)}${errorsOf(samples)}`,
    ];
  });
  return [
    markdownTable(
      ['chats', 'first token → first text delta p50', 'p95', 'whole chat (send → finish) p50', 'p95', 'errors'],
      rows,
    ),
    `The ${second[1].length} concurrent chats took ${formatMs(wallMs)} from the first send to the last finish.`,
  ].join('\n\n');
}

function errorsOf(samples: ChatSample[]): string {
  const kinds = [...new Set(samples.flatMap((sample) => (sample.error ? [sample.error.slice(0, 80)] : [])))];
  return kinds.length === 0 ? '' : ` (${kinds.slice(0, 3).join('; ')})`;
}
