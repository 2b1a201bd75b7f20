import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { cacheDirectory } from '../../../cli/dev-server/find-temporal-cli';
import { findExecutable, hasGo, runCommand } from '../../../cli/dev-server/build-tools';

/**
 * The MinIO server the tests use as their S3. MinIO's release tags (RELEASE.2025-…) are
 * not semantic versions, so the module proxy serves the build as a pseudo-version: this
 * is the newest commit it offers (2026-02-12), which builds with a plain `go install`
 * (no replace directives) on Go 1.24 and later.
 */
export const minioVersion = 'v0.0.0-20260212201848-7aac2a2c5b7c';
const modulePath = 'github.com/minio/minio';

export function cachedMinioPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheDirectory(env), 'minio', minioVersion, 'minio');
}

/** Looks for a `minio` binary: MINIO_PATH, then PATH, then the project's cache. */
export function findMinio(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  return findExecutable(env, { variable: 'MINIO_PATH', nameOnPath: 'minio', cached: () => cachedMinioPath(env) });
}

/**
 * Finds MinIO, or builds it with `go install` into the cache (about three minutes
 * on two cores, once). There is no download fallback: MinIO ships no npm package,
 * and its own downloads are outside the registries this project may reach.
 */
export async function ensureMinio(log: (line: string) => void = () => {}): Promise<string> {
  const found = await findMinio();
  if (found) return found;
  const target = cachedMinioPath();
  if (!(await hasGo())) {
    throw new Error(
      `MinIO is not installed and Go is not available to build it: install Go, or set MINIO_PATH to a minio binary`,
    );
  }
  log(`Building MinIO ${minioVersion} with go install into ${path.dirname(target)} (once; takes a few minutes)...`);
  await mkdir(path.dirname(target), { recursive: true });
  await runCommand('go', ['install', `${modulePath}@${minioVersion}`], {
    ...process.env,
    GOBIN: path.dirname(target),
    CGO_ENABLED: '0',
  });
  return target;
}
