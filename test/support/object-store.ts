import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

/** A bucket of its own on the tests' MinIO server, with the environment that points a worker, the CLI or a client at it. */
export interface TestBucket {
  bucket: string;
  /** AGENT_S3_PREFIX of this bucket's environment. */
  prefix: string;
  /** AGENT_S3_BUCKET, AGENT_S3_PREFIX, AWS_ENDPOINT_URL, AWS_REGION and the credentials: all a process needs to share the stores. */
  env: NodeJS.ProcessEnv;
  /** A plain S3 client on the same server, for the test's own look at the objects. */
  s3: S3Client;
  /** Every object in the bucket, sorted by key. */
  objects(): Promise<Array<{ key: string; size: number }>>;
  read(key: string): Promise<Buffer>;
  lastModified(key: string): Promise<Date>;
}

/** Creates a fresh bucket named after the test on the MinIO server that global-setup started. */
export async function createTestBucket(name: string, prefix = 'agents/test/'): Promise<TestBucket> {
  const endpoint = process.env.TEST_S3_ENDPOINT;
  if (!endpoint) {
    throw new Error(`no S3 server for the tests: ${process.env.TEST_S3_UNAVAILABLE ?? 'run them through jest (npm test)'}`);
  }
  const credentials = {
    accessKeyId: process.env.TEST_S3_ACCESS_KEY_ID!,
    secretAccessKey: process.env.TEST_S3_SECRET_ACCESS_KEY!,
  };
  const s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
  const bucket = `${name
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 40)}-${randomUUID().slice(0, 8)}`;
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    bucket,
    prefix,
    env: {
      AGENT_S3_BUCKET: bucket,
      AGENT_S3_PREFIX: prefix,
      AWS_ENDPOINT_URL: endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    },
    s3,
    async objects() {
      const found: Array<{ key: string; size: number }> = [];
      let token: string | undefined;
      do {
        const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
        for (const object of page.Contents ?? []) found.push({ key: object.Key!, size: object.Size! });
        token = page.NextContinuationToken;
      } while (token);
      return found.sort((a, b) => a.key.localeCompare(b.key));
    },
    async read(key) {
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return Buffer.from(await object.Body!.transformToByteArray());
    },
    async lastModified(key) {
      return (await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).LastModified!;
    },
  };
}

/** Local store directories of a worker's own, in a fresh temporary directory: a worker on a machine of its own. */
export async function privateDirectories(): Promise<{
  root: string;
  env: { AGENT_PAYLOAD_DIR: string; AGENT_TRANSCRIPT_DIR: string };
}> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'agent-machine-'));
  return { root, env: { AGENT_PAYLOAD_DIR: path.join(root, 'payloads'), AGENT_TRANSCRIPT_DIR: path.join(root, 'transcripts') } };
}

/** Every file under a directory, recursively (none when it does not exist). */
export async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}
