import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { CollectorProcess } from '../support/otel-collector/collector-process';
import { collect, lastJsonLine, runCli } from '../support/cli';
import { newKeyEntry } from '../support/encryption';
import { only, readExportedSpans, runTrace, startTestCollector } from '../support/exported-spans';
import { FakeModelServer, openaiReply } from '../support/fake-model-server';
import { walkthroughNamespace } from '../support/global-setup';
import { createTestBucket, filesUnder, privateDirectories, type TestBucket } from '../support/object-store';
import { storageReference } from '../support/history-payloads';
import { fetchRawHistory } from '../support/raw-history';
import { s3Operation, startRecordingHttpProxy, type RecordingHttpProxy } from '../support/recording-http-proxy';
import { uniqueTaskQueue } from '../support/temporal';
import { startTlsGrpcProxy, type TlsGrpcProxy } from '../support/tls-grpc-proxy';
import { typescriptArgs } from '../support/typescript-process';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// docs/production.md's walkthrough, end to end: `npm run worker` on one machine and the CLI on another, sharing
// nothing but the settings below. Temporal is reached as Temporal Cloud is, with an API key over TLS in a
// namespace of its own (a TLS gRPC proxy with a CA of its own stands in front of the tests' dev server); payloads
// and transcripts go to one S3 bucket (MinIO); every payload is encrypted; both processes trace to one collector.

const apiKey = 'walkthrough-api-key';
const longAnswer = `The file says ALPHA-SECRET-CONTENT. ${'More about it. '.repeat(20_000)}`;

let proxy: TlsGrpcProxy;
let collector: CollectorProcess;
let server: FakeModelServer;
let bucket: TestBucket;
let s3Calls: RecordingHttpProxy;
beforeAll(async () => {
  proxy = await startTlsGrpcProxy(process.env.TEST_TEMPORAL_ADDRESS!);
  collector = await startTestCollector(path.join(await mkdtemp(path.join(os.tmpdir(), 'agent-walkthrough-')), 'spans.jsonl'));
  server = await FakeModelServer.start();
  bucket = await createTestBucket('walkthrough', 'prod/');
  s3Calls = await startRecordingHttpProxy(process.env.TEST_S3_ENDPOINT!);
});
afterAll(async () => {
  await s3Calls?.close();
  await server?.close();
  await collector?.stop();
  await proxy?.close();
});

it('runs a worker and the CLI on separate machines against a TLS, API-key Temporal with S3, encryption and tracing', async () => {
  const taskQueue = uniqueTaskQueue('walkthrough');
  // What every worker and every CLI of the deployment gets (docs/production.md, "The whole setup").
  const deployment = {
    TEMPORAL_ADDRESS: proxy.address,
    TEMPORAL_NAMESPACE: walkthroughNamespace,
    TEMPORAL_API_KEY: apiKey,
    // Temporal Cloud's certificates are publicly trusted; this stand-in's CA is not, so it is named here.
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: proxy.caCertPath,
    TEMPORAL_TLS_SERVER_NAME: proxy.serverName,
    ...bucket.env,
    // MinIO, through a proxy that records which S3 calls the stores make.
    AWS_ENDPOINT_URL: s3Calls.url,
    AGENT_ENCRYPTION_KEYS: newKeyEntry('k1'),
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
    AGENT_TASK_QUEUE: taskQueue,
  };
  const workerMachine = await privateDirectories();
  const cliMachine = await privateDirectories();

  // No AGENT_WORKFLOW_BUNDLE: the worker bundles its workflows at start, as in production.
  const worker = spawn(process.execPath, typescriptArgs('worker/main.ts'), {
    env: {
      PATH: process.env.PATH,
      HOME: workerMachine.root,
      AGENT_WORKSPACE_ROOT: os.tmpdir(),
      ...server.providerEnv,
      ...workerMachine.env,
      ...deployment,
      OTEL_SERVICE_NAME: 'agent-worker',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = collect(worker);
  let stderr = '';
  worker.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    await waitFor('the worker to poll', () => stderr.includes('worker polling task queue'), { timeoutMs: 120_000 });
    expect(stderr).toContain(`worker polling task queue "${taskQueue}" on ${proxy.address} (namespace ${walkthroughNamespace})`);
    expect(stderr).toContain(`worker stores: s3://${bucket.bucket}/prod/`);
    expect(stderr).toContain(`worker tracing: OTLP to ${collector.endpoint}/v1/traces as service "agent-worker"`);

    const workspace = await makeWorkspace({ 'alpha.txt': 'ALPHA-SECRET-CONTENT' });
    server.enqueue(
      openaiReply({ toolCalls: [{ id: 'call-1', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
      // Over 256 KiB: the answer goes to the bucket through the payload driver, and history keeps a claim.
      openaiReply({ content: longAnswer }),
    );
    const run = await runCli(['run', 'What does alpha.txt say?', '--workspace', workspace, '--json'], {
      HOME: cliMachine.root,
      ...cliMachine.env,
      ...deployment,
      OTEL_SERVICE_NAME: 'agent-cli',
      AGENT_WORKFLOW_BUNDLE: '',
    });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('running one in this process');
    const { workflowId, answer } = lastJsonLine(run.stdout);
    expect(answer).toBe(longAnswer);

    // Temporal: every call of both processes came over TLS with the API key, in the deployment's namespace.
    expect(proxy.failedHandshakes()).toBe(0);
    const methods = new Set(proxy.calls.map((call) => call.path.split('/').pop()));
    for (const method of [
      'StartWorkflowExecution',
      'PollWorkflowTaskQueue',
      'RespondWorkflowTaskCompleted',
      'PollActivityTaskQueue',
    ]) {
      expect(methods).toContain(method);
    }
    expect(proxy.calls.filter((call) => call.authorization !== `Bearer ${apiKey}`)).toEqual([]);
    // Every call that carries a temporal-namespace header names the deployment's namespace.
    expect(new Set(proxy.calls.map((call) => call.namespace).filter(Boolean))).toEqual(new Set([walkthroughNamespace]));
    const direct = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
    try {
      const description = await new Client({ connection: direct, namespace: walkthroughNamespace }).workflow
        .getHandle(String(workflowId))
        .describe();
      expect(description.status.name).toBe('COMPLETED');

      // Encryption: Temporal holds no prompt, file content or answer in the clear.
      const history = await fetchRawHistory(direct, String(workflowId), walkthroughNamespace);
      for (const secret of ['What does alpha.txt say?', 'ALPHA-SECRET-CONTENT', 'read_file alpha.txt']) {
        expect(history.bytes.includes(Buffer.from(secret))).toBe(false);
      }
      // The long answer is there as a claim on an object in the bucket.
      expect(history.payloads.map(storageReference).some((reference) => reference?.claimData.bucket === bucket.bucket)).toBe(
        true,
      );
    } finally {
      await direct.close();
    }

    // Object storage: the answer's payload and the transcripts are in the bucket, and neither machine wrote locally.
    const objects = await bucket.objects();
    const payloadObjects = objects.filter((object) =>
      object.key.startsWith(`prod/v0/ns/${walkthroughNamespace}/wt/agentWorkflow/wi/${workflowId}/`),
    );
    const transcriptObjects = objects.filter((object) => object.key.startsWith('prod/transcripts/'));
    expect(payloadObjects.length).toBeGreaterThan(0);
    expect(transcriptObjects.length).toBeGreaterThan(0);
    // Every object is ciphertext: the payloads (the codec) and the transcript chunks (sealed with the same key).
    for (const object of objects) expect((await bucket.read(object.key)).includes('ALPHA-SECRET-CONTENT')).toBe(false);
    for (const object of transcriptObjects) expect(object.key).toMatch(/^prod\/transcripts\/[0-9a-f]{64}\.k1\.enc$/);
    // The only S3 calls the stores make: the bucket's policy needs s3:PutObject and s3:GetObject (HEAD is a read).
    expect(new Set(s3Calls.requests.map(s3Operation))).toEqual(new Set(['PutObject', 'GetObject', 'HeadObject']));
    // (Bundling the workflows at start leaves the compiler's native cache in the worker's ~/.cache.)
    const written = [...(await filesUnder(workerMachine.root)), ...(await filesUnder(cliMachine.root))];
    expect(written.filter((file) => !file.startsWith(path.join(workerMachine.root, '.cache', 'swc-native-')))).toEqual([]);

    // Tracing: one trace from the CLI's start of the run to the worker's model and tool calls.
    const trace = await waitFor('the run’s trace', async () => {
      const spans = runTrace(await readExportedSpans(collector.spansFile), String(workflowId));
      return (
        spans.some((span) => span.name === 'execute_tool read_file') &&
        spans.some((span) => span.name === 'RunWorkflow:agentWorkflow') &&
        spans
      );
    });
    expect(only(trace, 'StartWorkflow:agentWorkflow').service).toBe('agent-cli');
    expect(only(trace, 'RunWorkflow:agentWorkflow').service).toBe('agent-worker');
    expect(trace.filter((span) => span.name === 'chat gpt-4o-mini').map((span) => span.service)).toEqual([
      'agent-worker',
      'agent-worker',
    ]);
  } finally {
    worker.kill('SIGTERM');
    expect((await exited).code).toBe(0);
  }
});
