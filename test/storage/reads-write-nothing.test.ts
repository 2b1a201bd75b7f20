import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Message } from '../../core/messages';
import { startAgent } from '../../client/start-agent';
import { agentDataConverter } from '../../storage/data-converter';
import { EncryptionCodec } from '../../storage/encryption-codec';
import { loadEncryptionKeys } from '../../storage/encryption-keys';
import { lastJsonLine, runCliProcess } from '../support/cli';
import { newKeyEntry } from '../support/encryption';
import { openaiReply } from '../support/fake-model-server';
import { createTestBucket, privateDirectories, type TestBucket } from '../support/object-store';
import { spawnWorker } from '../support/spawned-worker';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { makeWorkspace } from '../support/workspace';

// Reading a run is free of side effects (shared/design.md): a worker answering a query on a closed run replays it,
// encoding its payloads again, and with encryption on each replay used to seal them under fresh random nonces, so
// every `agent show` left new copies of the run's large payloads in the bucket, named after ciphertext no one would
// ever read again. Here a worker with a bucket (with a key, and without) serves a run with a 400 KB answer; the
// CLI's show (which reads the stored transcript) and history leave the bucket exactly as they found it, and a raw
// messages query stores its large answer once. The CLI's stderr holds no warning either (the AWS SDK's Node 20 one).

const model = 'openai:gpt-4o-mini';

const bed = useTestBed({ spawnedWorkers: true });

const keyNames = async (bucket: TestBucket) => (await bucket.objects()).map((object) => object.key);

/** The value a payload object holds, decrypted with the keys of `env` when it is encrypted. */
async function storedValue(bucket: TestBucket, key: string, env: NodeJS.ProcessEnv) {
  const stored = temporal.api.common.v1.Payload.decode(await bucket.read(key));
  const [payload] = await new EncryptionCodec(loadEncryptionKeys(env)).decode([stored]);
  return JSON.parse(Buffer.from(payload.data!).toString());
}

describe.each([
  ['with encryption', { AGENT_ENCRYPTION_KEYS: newKeyEntry('k1') }],
  ['without encryption', {}],
])('reading a finished run %s', (_, keys: NodeJS.ProcessEnv) => {
  it('writes nothing to the bucket: agent show and agent history leave its objects as they were, and a messages query stores its answer once', async () => {
    const bucket = await createTestBucket('reads-write-nothing');
    const taskQueue = uniqueTaskQueue('reads-write-nothing');
    const env = { ...bucket.env, ...keys };
    await spawnWorker({
      address: process.env.TEST_TEMPORAL_ADDRESS!,
      taskQueue,
      identity: 'worker-with-bucket',
      env: { ...bed.server.providerEnv, ...env, ...(await privateDirectories()).env },
    });
    const client = new Client({
      connection: bed.environment.client.connection,
      namespace: 'default',
      dataConverter: agentDataConverter(env),
    });
    const answer = `ANSWER ${'a'.repeat(400 * 1024)}`;
    bed.server.enqueue(openaiReply({ content: answer }));
    const handle = await startAgent(
      client,
      { prompt: 'write a long answer', model, workspace: await makeWorkspace() },
      { taskQueue },
    );
    expect((await handle.result()).answer).toBe(answer);
    const afterRun = await keyNames(bucket);
    // The model's answer and the run's result at least: the answer is over the external-storage threshold.
    expect(afterRun.length).toBeGreaterThanOrEqual(2);

    const cliEnv = { ...env, AGENT_TASK_QUEUE: taskQueue, AGENT_TRANSCRIPT_DIR: undefined, AGENT_PAYLOAD_DIR: undefined };
    const show = async () => {
      const shown = await runCliProcess(['show', handle.workflowId, '--json'], cliEnv);
      expect(shown.code).toBe(0);
      // The AWS SDK warns on Node 20 that its 2027 versions need Node 22; the CLI's stderr is for the agent's progress.
      expect(shown.stderr).not.toMatch(/Warning|deprecat/i);
      expect((lastJsonLine(shown.stdout) as { messages: Message[] }).messages.at(-1)?.content).toBe(answer);
    };

    // agent show reads the stored transcript and the small rest (the conversation query): nothing is written.
    await show();
    expect(await keyNames(bucket)).toEqual(afterRun);
    await show();
    expect(await keyNames(bucket)).toEqual(afterRun);

    const historyFile = path.join(await mkdtemp(path.join(os.tmpdir(), 'agent-history-')), 'history.json');
    const history = await runCliProcess(['history', handle.workflowId, '--out', historyFile], cliEnv);
    expect(history.code).toBe(0);
    expect(history.stderr).not.toMatch(/Warning|deprecat/i);
    expect(await keyNames(bucket)).toEqual(afterRun);

    // A client's own `messages` query is answered whole: an answer over 256 KiB travels through the bucket like any
    // payload (one over 2 MB could not travel otherwise). It is named after its content, so it is stored once, and
    // reading again writes nothing.
    const messages = await client.workflow.getHandle(handle.workflowId).query<Message[]>('messages');
    expect(messages.at(-1)?.content).toBe(answer);
    const afterQuery = await keyNames(bucket);
    const added = afterQuery.filter((key) => !afterRun.includes(key));
    expect(added).toHaveLength(1);
    expect((await storedValue(bucket, added[0], env)).at(-1).content).toBe(answer);
    await client.workflow.getHandle(handle.workflowId).query<Message[]>('messages');
    await show();
    expect(await keyNames(bucket)).toEqual(afterQuery);
  });
});

it('prints no AWS SDK warning on stderr from a command that uses the bucket, whatever the Node version', async () => {
  const bucket = await createTestBucket('no-sdk-warning');
  const missing = await runCliProcess(['show', 'no-such-run'], {
    ...bucket.env,
    AGENT_TRANSCRIPT_DIR: undefined,
    AGENT_PAYLOAD_DIR: undefined,
  });
  // The command built its S3 client (the SDK warns when the first one is made) and got as far as asking Temporal.
  expect(missing.stderr).toContain('no-such-run');
  expect(missing.code).toBe(1);
  expect(missing.stderr).not.toMatch(/Warning|deprecat/i);
});
