import { spawn } from 'node:child_process';
import { collect } from '../support/cli';
import { typescriptArgs } from '../support/typescript-process';
import { createTestBucket, type TestBucket } from '../support/object-store';
import { uniqueTaskQueue } from '../support/temporal';
import { waitFor } from '../support/wait-for';

// `npm run worker` checks its stores before it polls: a bucket it cannot use
// stops it at once, with S3's own reason, instead of degrading quietly.

let bucket: TestBucket;
beforeAll(async () => {
  bucket = await createTestBucket('worker-start');
});

function runWorker(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, typescriptArgs('worker/main.ts'), {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
      AGENT_TASK_QUEUE: uniqueTaskQueue('worker-start'),
      AGENT_WORKFLOW_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { child, exited: collect(child) };
}

it.each([
  ['a bucket that does not exist', () => ({ AGENT_S3_BUCKET: 'no-such-bucket-here' }), /NoSuchBucket/],
  ['a wrong secret key', () => ({ AWS_SECRET_ACCESS_KEY: 'not-the-secret' }), /SignatureDoesNotMatch/],
  ['no S3 server at the endpoint', () => ({ AWS_ENDPOINT_URL: 'http://127.0.0.1:1' }), /ECONNREFUSED/],
])('refuses to start with %s, saying why', async (_case, override, reason) => {
  const { exited } = runWorker({ ...bucket.env, ...override() });
  const { code, stderr } = await exited;
  expect(code).toBe(1);
  expect(stderr).toMatch(
    /worker failed: the stores \(s3:\/\/\S+\/agents\/test\/ at http:\/\/127\.0\.0\.1:\d+\) are not usable: /,
  );
  expect(stderr).toMatch(reason);
  expect(stderr).not.toContain('worker polling task queue');
});

it('starts with a bucket it can write and read, leaving only the empty transcript there', async () => {
  const { child, exited } = runWorker(bucket.env);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await waitFor('the worker to start polling', () => stderr.includes('worker stores:'), { timeoutMs: 30_000 });
  child.kill('SIGTERM');
  expect((await exited).code).toBe(0);
  expect(stderr).toContain(`worker stores: s3://${bucket.bucket}/agents/test/`);
  const objects = await bucket.objects();
  expect(objects.map((object) => object.key)).toEqual([expect.stringMatching(/^agents\/test\/transcripts\/[0-9a-f]{64}\.json$/)]);
  expect(JSON.parse((await bucket.read(objects[0].key)).toString())).toEqual({ parent: null, messages: [] });
});
