import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Client } from '@temporalio/client';
import type { AgentInput } from '../core/resolve-input';
import { resolveOrThrow } from '../client/start-agent';
import { ensureMinio } from '../test/support/minio/find-minio';
import { startMinio, type MinioServer } from '../test/support/minio/minio-server';
import { agentDataConverter } from '../storage/data-converter';
import { agentStores } from '../storage/stores';
import { builtInTools } from '../tools';
import { createAgentWorker } from '../worker/create-worker';
import { agentWorkflowType, endSessionSignal, messagesQuery, sendMessageUpdate } from '../workflows/definitions';
import { benchText, benchTools, textChunk, textChunkChars } from './support/bench-tools';
import type { Benchmark } from './support/benchmark';
import type { BenchEnvironment } from './support/environment';
import { formatBytes, formatCount, formatMs, markdownTable, type TargetRow } from './support/format';
import { eventBytes, fetchRunChain, type RunHistory } from './support/history';
import { log } from './support/log';
import { answer, callTools, LoadModel } from './support/load-model';
import { median, percentile } from './support/stats';

const maxHistoryGrowth = 0.05;

/**
 * The same chat on both storage backends, turn by turn side by side: local
 * directories (the embedded default) and an S3 bucket on a MinIO server on
 * loopback (what workers on several machines use). Each user message (~1 KB)
 * gets a bench_text tool call (~2 KB of output) and a ~500-character answer.
 * Each backend has a worker of its own with the real stores; only the provider
 * call is scripted. Measured: history bytes (every run, protobuf encodings),
 * what the stores hold, and each message's round trip as the client sees it.
 */
export const objectStorage: Benchmark = {
  name: 'object-storage',
  title: 'A chat on local directories and on S3 side by side: history bytes, store bytes, time per message',
  async run({ environment, quick }) {
    const turns = quick ? 50 : 200;
    const cleanups: Array<() => Promise<unknown>> = [];
    try {
      const minio = await startBenchMinio(cleanups);
      const local = await localBackend(cleanups);
      const s3 = await s3Backend(minio);
      const chats = [await startChat(environment, local, cleanups), await startChat(environment, s3, cleanups)];
      log(`object-storage: a ${turns}-message chat on each backend, one message to each in turn...`);
      for (let turn = 1; turn <= turns; turn++) {
        for (const chat of chats) await chat.send(userMessage(turn));
        if (turn % 50 === 0) log(`  ${turn} messages`);
      }
      const results = await Promise.all(chats.map((chat) => chat.finish(turns)));
      const [localResult, s3Result] = results;

      const historyRatio = s3Result.historyBytes / localResult.historyBytes - 1;
      const targets: TargetRow[] = [
        {
          measure: `history of a ${formatCount(turns)}-message chat, S3 against local directories`,
          result: `${formatBytes(s3Result.historyBytes)} against ${formatBytes(localResult.historyBytes)} (${formatSigned(historyRatio)})`,
          target: 'moving the stores to S3 adds at most 5% to history (longer claims)',
          pass: historyRatio <= maxHistoryGrowth,
        },
      ];
      return {
        details: [
          markdownTable(
            [
              'backend',
              'message round trip, median',
              'p90',
              'runs',
              'history, all runs',
              'history per message',
              'transcripts in the store',
              'large payloads in the store',
            ],
            results.map((result) => [
              result.backend,
              formatMs(median(result.roundTripsMs)),
              formatMs(percentile(result.roundTripsMs, 90)),
              String(result.runs.length),
              formatBytes(result.historyBytes),
              formatBytes(result.historyBytes / turns),
              `${formatCount(result.stored.transcripts.count)} objects, ${formatBytes(result.stored.transcripts.bytes)}`,
              `${formatCount(result.stored.payloads.count)} objects, ${formatBytes(result.stored.payloads.bytes)}`,
            ]),
          ),
          markdownTable(
            ['S3 chat: run', 'events', 'history size', 'its WorkflowExecutionStarted event', 'payloads it holds as claims'],
            s3Result.runs.map((run, index) => [
              String(index + 1),
              formatCount(run.events.length),
              formatBytes(run.bytes),
              formatBytes(eventBytes(run.events[0])),
              formatBytes(run.externalBytes),
            ]),
          ),
          `Each message: ~1 KB from the user, a bench_text call returning ${formatCount(textChunkChars)} characters, a ` +
            '~500-character answer. The round trip is `executeUpdate(sendMessage)` from the client: two model calls, one tool call, ' +
            'the update itself. The transcript store writes one chunk per model call; large payloads are what continue-as-new ' +
            'carries (the conversation) and query answers over 256 KiB (one `messages` query at the end, as `agent show` makes).',
        ],
        targets,
      };
    } finally {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    }
  },
};

interface Backend {
  name: string;
  env: NodeJS.ProcessEnv;
  storedBytes(): Promise<{ transcripts: Tally; payloads: Tally }>;
}

interface Tally {
  count: number;
  bytes: number;
}

async function startBenchMinio(cleanups: Array<() => Promise<unknown>>): Promise<MinioServer> {
  const binary = await ensureMinio(log);
  const dataDirectory = await mkdtemp(path.join(os.tmpdir(), 'bench-minio-'));
  cleanups.push(() => rm(dataDirectory, { recursive: true, force: true }));
  const minio = await startMinio({
    binary,
    dataDirectory,
    accessKeyId: 'durable-agent-bench',
    secretAccessKey: 'durable-agent-bench-secret',
  });
  cleanups.push(() => minio.stop());
  return minio;
}

async function localBackend(cleanups: Array<() => Promise<unknown>>): Promise<Backend> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'bench-local-stores-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  const env = { AGENT_PAYLOAD_DIR: path.join(root, 'payloads'), AGENT_TRANSCRIPT_DIR: path.join(root, 'transcripts') };
  return {
    name: 'local directories',
    env,
    storedBytes: async () => ({
      transcripts: await directoryTally(env.AGENT_TRANSCRIPT_DIR),
      payloads: await directoryTally(env.AGENT_PAYLOAD_DIR),
    }),
  };
}

async function s3Backend(minio: MinioServer): Promise<Backend> {
  const bucket = `bench-chat-${randomUUID().slice(0, 8)}`;
  const prefix = 'agents/';
  const credentials = { accessKeyId: minio.accessKeyId, secretAccessKey: minio.secretAccessKey };
  const s3 = new S3Client({ endpoint: minio.endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  const env = {
    AGENT_S3_BUCKET: bucket,
    AGENT_S3_PREFIX: prefix,
    AWS_ENDPOINT_URL: minio.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
  };
  return {
    name: 'S3 (MinIO on loopback)',
    env,
    async storedBytes() {
      const tally = { transcripts: { count: 0, bytes: 0 }, payloads: { count: 0, bytes: 0 } };
      let token: string | undefined;
      do {
        const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
        for (const object of page.Contents ?? []) {
          const kind = object.Key!.startsWith(`${prefix}transcripts/`) ? tally.transcripts : tally.payloads;
          kind.count++;
          kind.bytes += object.Size!;
        }
        token = page.NextContinuationToken;
      } while (token);
      return tally;
    },
  };
}

interface ChatResult {
  backend: string;
  roundTripsMs: number[];
  runs: RunHistory[];
  historyBytes: number;
  stored: { transcripts: Tally; payloads: Tally };
}

/** A session on a worker and client of its own, configured with the backend's environment alone. */
async function startChat(environment: BenchEnvironment, backend: Backend, cleanups: Array<() => Promise<unknown>>) {
  const taskQueue = `bench-storage-${randomUUID()}`;
  const workflowId = `bench-chat-${randomUUID().slice(0, 8)}`;
  const dataConverter = agentDataConverter(backend.env);
  const model = new LoadModel(agentStores(backend.env).transcripts);
  // Odd model turns ask for bench_text, even ones answer: one tool call per user message.
  model.add(workflowId, (turn) =>
    turn % 2 === 1
      ? callTools(turn, [{ name: benchText.name, arguments: { turn } }])
      : answer(`answer ${turn}: `.padEnd(500, '.')),
  );
  const server = await environment.server('project');
  const worker = await createAgentWorker({
    connection: server.nativeConnection,
    namespace: server.namespace,
    taskQueue,
    tools: [...builtInTools, ...benchTools],
    env: {},
    workspaceRoot: environment.workspace,
    workflowBundle: { code: environment.bundleCode },
    activityOverrides: { callModel: model.callModel },
    overrides: { dataConverter },
  });
  const running = worker.run();
  cleanups.push(async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
  });
  const client = new Client({ connection: server.connection, namespace: server.namespace, dataConverter });
  const input: AgentInput = {
    model: 'openai:bench-scripted',
    tools: [benchText.name],
    workspace: environment.workspace,
    session: { idleTimeoutSeconds: 3600 },
  };
  const started = await client.workflow.start(agentWorkflowType, { taskQueue, workflowId, args: [resolveOrThrow(input)] });
  const handle = client.workflow.getHandle(workflowId);
  const roundTripsMs: number[] = [];
  return {
    async send(message: string): Promise<void> {
      const sentAt = performance.now();
      await handle.executeUpdate(sendMessageUpdate, { args: [message] });
      roundTripsMs.push(performance.now() - sentAt);
    },
    async finish(turns: number): Promise<ChatResult> {
      // What `agent show` does: the whole conversation, through the messages query.
      const messages = await handle.query(messagesQuery);
      if (messages.length !== 4 * turns)
        throw new Error(`the ${backend.name} chat holds ${messages.length} messages, not ${4 * turns}`);
      await handle.signal(endSessionSignal);
      await handle.result();
      const runs = await fetchRunChain(client, workflowId, started.firstExecutionRunId);
      return {
        backend: backend.name,
        roundTripsMs,
        runs,
        historyBytes: runs.reduce((sum, run) => sum + run.bytes, 0),
        stored: await backend.storedBytes(),
      };
    },
  };
}

function userMessage(turn: number): string {
  return `message ${turn}: ${textChunk(10_000 + turn)}`.slice(0, 1024);
}

async function directoryTally(directory: string): Promise<Tally> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => []);
  const files = entries.filter((entry) => entry.isFile());
  const sizes = await Promise.all(files.map(async (file) => (await stat(path.join(file.parentPath, file.name))).size));
  return { count: files.length, bytes: sizes.reduce((sum, size) => sum + size, 0) };
}

function formatSigned(fraction: number): string {
  const percent = (fraction * 100).toFixed(1);
  return `${fraction >= 0 ? '+' : ''}${percent}%`;
}
