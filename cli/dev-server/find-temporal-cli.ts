import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findExecutable, hasGo, runCommand } from './build-tools';

/** The newest CLI tag that still builds with a plain `go install` (later tags carry replace directives). */
export const temporalCliVersion = 'v1.5.1';
const modulePath = 'github.com/temporalio/cli/cmd/temporal';

/** How to run the Temporal dev server: a binary we found or built, or the SDK's own download. */
export type TemporalExecutable = { type: 'existing-path'; path: string } | { type: 'cached-download' };

export function cacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'durable-agent');
}

export function cachedCliPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheDirectory(env), 'temporal-cli', temporalCliVersion, 'temporal');
}

/** Looks for a `temporal` binary: TEMPORAL_CLI_PATH, then PATH, then the project's cache. */
export function findTemporalCli(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  return findExecutable(env, { variable: 'TEMPORAL_CLI_PATH', nameOnPath: 'temporal', cached: () => cachedCliPath(env) });
}

/**
 * Finds the Temporal CLI, building it with `go install` into the cache when Go
 * is available (minutes, once), and otherwise falls back to the SDK's download,
 * which works for users with internet access.
 */
export async function ensureTemporalCli(log: (line: string) => void = () => {}): Promise<TemporalExecutable> {
  const found = await findTemporalCli();
  if (found) return { type: 'existing-path', path: found };
  if (await hasGo()) {
    const target = cachedCliPath();
    log(
      `Building the Temporal CLI ${temporalCliVersion} with go install into ${path.dirname(target)} (once; takes a few minutes)...`,
    );
    await buildWithGo(path.dirname(target));
    return { type: 'existing-path', path: target };
  }
  log('No Temporal CLI found and Go is not installed: falling back to the SDK download of the Temporal CLI.');
  return { type: 'cached-download' };
}

async function buildWithGo(binDirectory: string): Promise<void> {
  await mkdir(binDirectory, { recursive: true });
  await runCommand('go', ['install', `${modulePath}@${temporalCliVersion}`], {
    ...process.env,
    GOBIN: binDirectory,
    CGO_ENABLED: '0',
  });
}
