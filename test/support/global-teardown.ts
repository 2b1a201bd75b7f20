import { rm } from 'node:fs/promises';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { MinioServer } from './minio/minio-server';

export default async function globalTeardown(): Promise<void> {
  const globals = globalThis as Record<string, unknown>;
  const environment = globals.temporalTestEnvironment as TestWorkflowEnvironment | undefined;
  const minio = globals.minioTestServer as MinioServer | undefined;
  await Promise.all([environment?.teardown(), minio?.stop()]);
  if (minio) await rm(minio.dataDirectory, { recursive: true, force: true });
}
