import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { waitFor } from '../support/wait-for';
import { typescriptArgs } from '../support/typescript-process';
import { NativeConnection, Worker } from '@temporalio/worker';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { AgentInput } from '../../core/resolve-input';
import type { AgentResult } from '../../core/result';
import { startAgent } from '../../client/start-agent';
import { agentDataConverter } from '../../storage/data-converter';
import { agentStores } from '../../storage/stores';
import { createAgentWorker } from '../../worker/create-worker';
import { collect, lastJsonLine, runCli } from '../support/cli';
import { startCodecServer } from '../support/codec-server-process';
import { newKeyEntry } from '../support/encryption';
import { openaiReply } from '../support/fake-model-server';
import { encodingOf, fetchRawHistory, payloadTextsFromJson, type RawHistory } from '../support/raw-history';
import { inProcessTestWorker, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { filesUnder } from '../support/object-store';
import { makeWorkspace } from '../support/workspace';

const bed = useTestBed();

const k1 = newKeyEntry('k1');
const PayloadMessage = temporal.api.common.v1.Payload;
const EventType = temporal.api.enums.v1.EventType;

// Text that must never appear in the clear outside the worker, the client and the model server.
const promptText = 'PROMPT-5b8e what does alpha.txt say?';
const fileText = 'FILE-CONTENT-7f3a: the alpha file';
const answerText = 'ANSWER-91c2: it says the alpha file';

interface EncryptedSetup {
  taskQueue: string;
  payloadDir: string;
  transcriptDir: string;
  env: NodeJS.ProcessEnv;
  client: Client;
  worker: Worker;
  /** Shuts the worker down, waits for it to drain, and closes its connection. */
  stop(): Promise<void>;
}

/** A worker and a client that share keys and an external-payload directory, like a deployment does. */
async function encryptedSetup(
  keys: string,
  taskQueue = uniqueTaskQueue('encryption'),
  payloadDir?: string,
): Promise<EncryptedSetup> {
  payloadDir ??= await mkdtemp(path.join(os.tmpdir(), 'encrypted-payloads-'));
  const transcriptDir = await mkdtemp(path.join(os.tmpdir(), 'encrypted-transcripts-'));
  const env = {
    AGENT_ENCRYPTION_KEYS: keys,
    AGENT_PAYLOAD_DIR: payloadDir,
    AGENT_TRANSCRIPT_DIR: transcriptDir,
    AGENT_TASK_QUEUE: taskQueue,
  };
  const dataConverter = agentDataConverter({ ...process.env, ...env });
  const connection = await NativeConnection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  const worker = await createAgentWorker({
    // A connection of its own: the test bed's is closed by an afterAll that runs before ours.
    connection,
    namespace: 'default',
    taskQueue,
    env: bed.server.providerEnv,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    // Its stores read the same settings as its data converter (a worker process reads both from its environment).
    transcripts: agentStores({ ...process.env, ...env }).transcripts,
    overrides: { dataConverter, ...inProcessTestWorker },
  });
  const client = new Client({ connection: bed.environment.connection, namespace: 'default', dataConverter });
  const running = worker.run();
  const stop = async () => {
    worker.shutdown();
    await running;
    await connection.close();
  };
  return { taskQueue, payloadDir, transcriptDir, env, client, worker, stop };
}

let setup: EncryptedSetup;
beforeAll(async () => {
  setup = await encryptedSetup(k1);
});
afterAll(async () => {
  await setup?.stop();
});

function expectNoPlaintext(bytes: Buffer, ...texts: string[]): void {
  const text = bytes.toString('latin1');
  for (const secret of texts) expect(text).not.toContain(secret);
}

/** Every payload in the history is ciphertext under `keyId`, or an external-storage claim. */
function expectAllPayloadsEncrypted(history: RawHistory, keyId: string): void {
  expect(history.payloads.length).toBeGreaterThan(5);
  for (const payload of history.payloads) {
    const encoding = encodingOf(payload);
    if (encoding === 'json/protobuf') {
      expect(Buffer.from(payload.metadata!.messageType!).toString()).toBe('temporal.api.sdk.v1.ExternalStorageReference');
      continue;
    }
    expect(encoding).toBe('binary/encrypted');
    expect(Buffer.from(payload.metadata!['encryption-key-id']!).toString()).toBe(keyId);
  }
}

describe('with AGENT_ENCRYPTION_KEYS', () => {
  let workflowId: string;
  let modelRequests: typeof bed.server.requests;

  beforeAll(async () => {
    const workspace = await makeWorkspace({ 'alpha.txt': fileText });
    bed.server.enqueue(
      openaiReply({ toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
      openaiReply({ content: answerText }),
    );
    const run = await runCli(['run', promptText, '--workspace', workspace, '--json'], {
      ...bed.server.providerEnv,
      ...setup.env,
    });
    expect(run.code).toBe(0);
    const result = lastJsonLine(run.stdout);
    expect(result).toMatchObject({ status: 'completed', answer: answerText });
    workflowId = String(result.workflowId);
    modelRequests = [...bed.server.requests];
  });

  it('keeps the prompt, the tool output and the answer out of the history Temporal stores', async () => {
    // The model did receive them in the clear: encryption is between the worker and Temporal.
    expect(JSON.stringify(modelRequests[1].body)).toContain(fileText);

    const history = await fetchRawHistory(bed.environment.connection, workflowId);
    expectNoPlaintext(history.bytes, promptText, 'PROMPT-5b8e', fileText, 'FILE-CONTENT-7f3a', answerText, 'ANSWER-91c2');
    // The Web UI's summaries are payloads too: encrypted like the rest.
    expectNoPlaintext(history.bytes, 'read_file alpha.txt', 'alpha.txt');
    expectAllPayloadsEncrypted(history, 'k1');
  });

  it('reads the run back with the key: agent show prints the decrypted conversation', async () => {
    const show = await runCli(['show', workflowId], setup.env);
    expect(show.stderr).toContain('COMPLETED');
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`[user]\n${promptText}`);
    expect(show.stdout).toContain(`[tool read_file c1]\n${fileText}`);
    expect(show.stdout).toContain(answerText);
  });

  it('reads it after a rotation: a new first key, the old one kept to decrypt', async () => {
    const show = await runCli(['show', workflowId], { ...setup.env, AGENT_ENCRYPTION_KEYS: `${newKeyEntry('k2')},${k1}` });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(answerText);
  });

  it('fails with a clear error naming the key id when the key is missing or wrong', async () => {
    const unknownKey = await runCli(['show', workflowId], { ...setup.env, AGENT_ENCRYPTION_KEYS: newKeyEntry('k2') });
    expect(unknownKey.code).toBe(1);
    expect(unknownKey.stderr).toContain(
      'error: a payload is encrypted with key "k1", which is not among this process\'s keys (k2): add it to AGENT_ENCRYPTION_KEYS',
    );

    const wrongMaterial = await runCli(['show', workflowId], { ...setup.env, AGENT_ENCRYPTION_KEYS: newKeyEntry('k1') });
    expect(wrongMaterial.code).toBe(1);
    expect(wrongMaterial.stderr).toContain(
      'error: a payload encrypted with key "k1" does not decrypt with this process\'s key "k1"',
    );

    const noKeys = await runCli(['show', workflowId], { ...setup.env, AGENT_ENCRYPTION_KEYS: '' });
    expect(noKeys.code).toBe(1);
    expect(noKeys.stderr).toContain('error: a payload is encrypted with key "k1", but this process has no encryption keys');
    for (const attempt of [unknownKey, wrongMaterial, noKeys]) expect(attempt.stdout).not.toContain('ANSWER-91c2');
  });

  it('seals the worker-side transcript store (AGENT_TRANSCRIPT_DIR) with the same key', async () => {
    const files = await filesUnder(setup.transcriptDir);
    // The two model answers, each a chunk named <hmac>.<key id>.enc.
    expect(files.map((file) => path.basename(file))).toEqual([
      expect.stringMatching(/^[0-9a-f]{64}\.k1\.enc$/),
      expect.stringMatching(/^[0-9a-f]{64}\.k1\.enc$/),
    ]);
    for (const file of files) expectNoPlaintext(await readFile(file), promptText, fileText, answerText, 'alpha.txt');
  });

  it('replays the recorded (encrypted) history with the keys, and not without them', async () => {
    const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'encrypted-history-')), 'history.json');
    const saved = await runCli(['history', workflowId, '--out', file], setup.env);
    expect(saved.code).toBe(0);
    const history = historyFromJSON(JSON.parse(await readFile(file, 'utf8')));
    expectNoPlaintext(Buffer.from(temporal.api.history.v1.History.encode(history).finish()), answerText, fileText);

    const replay = (keys: string) =>
      Worker.runReplayHistory(
        {
          workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
          dataConverter: agentDataConverter({ ...process.env, ...setup.env, AGENT_ENCRYPTION_KEYS: keys }),
        },
        history,
        workflowId,
      );
    await expect(replay(k1)).resolves.toBeUndefined();
    // The replayer reports the workflow task failure with its quotes escaped.
    await expect(replay(newKeyEntry('k2'))).rejects.toThrow(
      /a payload is encrypted with key \\?"k1\\?", which is not among this process's keys \(k2\)/,
    );
  });

  it("serves Temporal's own CLI through agent codec-server: temporal workflow show decrypts with --codec-endpoint", async () => {
    const codec = await startCodecServer(['--auth-token', 'cli-token'], { AGENT_ENCRYPTION_KEYS: k1 });
    try {
      const show = (args: string[]) =>
        collect(
          spawn(
            process.env.TEST_TEMPORAL_CLI!,
            [
              'workflow',
              'show',
              '--workflow-id',
              workflowId,
              '--address',
              process.env.TEST_TEMPORAL_ADDRESS!,
              '--output',
              'json',
              ...args,
            ],
            {
              stdio: ['ignore', 'pipe', 'pipe'],
            },
          ),
        );
      // The JSON output keeps payloads in protobuf JSON (data base64); read them back.
      const payloadText = (stdout: string) => payloadTextsFromJson(JSON.parse(stdout)).join('\n');
      const decrypted = await show(['--codec-endpoint', codec.url, '--codec-auth', 'Bearer cli-token']);
      expect(decrypted.code).toBe(0);
      expect(payloadText(decrypted.stdout)).toContain(answerText);
      expect(payloadText(decrypted.stdout)).toContain(fileText);

      const raw = await show([]);
      expect(raw.code).toBe(0);
      expect(payloadText(raw.stdout)).not.toContain('ANSWER-91c2');
      expect(payloadText(raw.stdout)).toContain('binary/encrypted');
    } finally {
      await codec.stop();
    }
  });
});

it('stores large payloads externally as ciphertext: neither history nor the payload files hold the text', async () => {
  const line = (n: number) => `LARGE-SECRET-SYSTEM line ${n}\n`;
  const systemPrompt = Array.from({ length: 6000 }, (_, n) => line(n)).join('');
  const prompt = Array.from({ length: 6000 }, (_, n) => `LARGE-SECRET-PROMPT line ${n}\n`).join('');
  expect(Buffer.byteLength(systemPrompt + prompt)).toBeGreaterThan(300 * 1024);
  bed.server.enqueue(openaiReply({ content: 'LARGE-ANSWER done' }));

  const input: AgentInput = { prompt, systemPrompt, model: 'openai:gpt-4o-mini', tools: [], workspace: bed.workspace };
  const handle = await startAgent(setup.client, input, { taskQueue: setup.taskQueue });
  const result: AgentResult = await handle.result();
  expect(result.answer).toBe('LARGE-ANSWER done');
  expect(JSON.stringify(bed.server.requests[0].body)).toContain('LARGE-SECRET-PROMPT line 5999');

  const files = (await readdir(setup.payloadDir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
  expect(files.length).toBeGreaterThanOrEqual(1);
  for (const file of files) {
    const bytes = await readFile(path.join(file.parentPath, file.name));
    expectNoPlaintext(bytes, 'LARGE-SECRET', 'LARGE-ANSWER');
    const stored = PayloadMessage.decode(bytes);
    expect(encodingOf(stored)).toBe('binary/encrypted');
    expect(Buffer.from(stored.metadata['encryption-key-id']).toString()).toBe('k1');
    expect(stored.data.length).toBeGreaterThan(256 * 1024);
  }

  const history = await fetchRawHistory(bed.environment.connection, handle.workflowId);
  expectNoPlaintext(history.bytes, 'LARGE-SECRET', 'LARGE-ANSWER');
  expectAllPayloadsEncrypted(history, 'k1');
  expect(history.payloads.filter((payload) => encodingOf(payload) === 'json/protobuf').length).toBeGreaterThanOrEqual(1);
});

it('loses nothing when a key reaches the client before the worker: the workflow task fails naming the key, and a worker with it finishes the run', async () => {
  const k2 = newKeyEntry('k2');
  const old = await encryptedSetup(k1);
  // A client that already encrypts with k2, while the worker knows only k1.
  const rotatedClient = new Client({
    connection: bed.environment.connection,
    namespace: 'default',
    dataConverter: agentDataConverter({ ...process.env, ...old.env, AGENT_ENCRYPTION_KEYS: `${k2},${k1}` }),
  });
  bed.server.enqueue(openaiReply({ content: 'ROTATED-ANSWER' }));
  const input: AgentInput = { prompt: 'rotate', model: 'openai:gpt-4o-mini', tools: [], workspace: bed.workspace };
  const handle = await startAgent(rotatedClient, input, { taskQueue: old.taskQueue });

  const failure = await waitFor('the workflow task to fail', async () => {
    const events = (await fetchRawHistory(bed.environment.connection, handle.workflowId)).events;
    return events.find((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)
      ?.workflowTaskFailedEventAttributes;
  });
  expect(failure?.failure?.message).toContain(
    'a payload is encrypted with key "k2", which is not among this process\'s keys (k1)',
  );
  await old.stop();
  expect(bed.server.requests).toHaveLength(0);

  const upgraded = await encryptedSetup(`${k2},${k1}`, old.taskQueue, old.payloadDir);
  try {
    const result: AgentResult = await handle.result();
    expect(result.answer).toBe('ROTATED-ANSWER');
  } finally {
    await upgraded.stop();
  }
});

it('refuses to start a worker or a run with bad key material, saying why', async () => {
  const env = { AGENT_ENCRYPTION_KEYS: 'k1:dG9vIHNob3J0', AGENT_TASK_QUEUE: uniqueTaskQueue('bad-key') };
  const run = await runCli(['run', 'hello', '--workspace', bed.workspace], env);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('error: AGENT_ENCRYPTION_KEYS: key "k1" is 9 bytes; AES-256 needs 32');
  expect(run.stdout).toBe('');

  const worker = await collect(
    spawn(process.execPath, typescriptArgs('worker/main.ts'), {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  expect(worker.code).toBe(1);
  expect(worker.stderr).toContain('worker failed: AGENT_ENCRYPTION_KEYS: key "k1" is 9 bytes; AES-256 needs 32');
});
