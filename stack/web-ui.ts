import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ServerProcess } from '../cli/dev-server/server-process';

export interface StackWebUi {
  url: string;
  stop(): Promise<void>;
}

/**
 * The Temporal Web UI: the ui-server the temporalio/ui image runs (same module, same version), with the image's
 * own config (config/docker.yaml, which reads its environment) and the compose file's temporal-ui environment,
 * the addresses changed to where this machine has the frontend and the codec server.
 */
export async function startWebUi(options: {
  uiServer: string;
  configDirectory: string;
  composeEnvironment: Record<string, string>;
  temporalAddress: string;
  port: number;
  codecEndpoint?: string;
  logFile: string;
}): Promise<StackWebUi> {
  const url = `http://127.0.0.1:${options.port}`;
  const env: Record<string, string> = {
    ...options.composeEnvironment,
    TEMPORAL_ADDRESS: options.temporalAddress,
    TEMPORAL_UI_PORT: String(options.port),
    TEMPORAL_CORS_ORIGINS: `http://localhost:${options.port},${url}`,
    // The compose file sets both only when AGENT_ENCRYPTION_KEYS is (empty means no codec server).
    TEMPORAL_CODEC_ENDPOINT: options.codecEndpoint ?? '',
    TEMPORAL_CODEC_INCLUDE_CREDENTIALS: options.codecEndpoint
      ? (options.composeEnvironment.TEMPORAL_CODEC_INCLUDE_CREDENTIALS ?? '')
      : '',
  };
  // The image's config as it is, plus one line: the image's docker.yaml leaves `host` unset, so the server listens on
  // every interface; Compose then binds the port to 127.0.0.1 only. Here the server itself listens on loopback only.
  const configDirectory = path.join(path.dirname(options.logFile), 'temporal-ui-config');
  await mkdir(configDirectory, { recursive: true });
  const base = await readFile(path.join(options.configDirectory, 'base.yaml'), 'utf8');
  await writeFile(path.join(configDirectory, 'base.yaml'), `${base.trimEnd()}\nhost: 127.0.0.1\n`);
  await writeFile(path.join(configDirectory, 'docker.yaml'), await readFile(path.join(options.configDirectory, 'docker.yaml')));
  const log = openSync(options.logFile, 'a');
  const child = spawn(options.uiServer, ['--root', configDirectory, '--config', '.', '--env', 'docker', 'start'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const server = new ServerProcess(child, `the Temporal Web UI (log: ${options.logFile})`);
  await server.waitUntilReady(() => answers(url), { what: `${url} answering`, timeoutMs: 60_000 });
  return { url, stop: () => server.stop() };
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1_000) })).ok;
  } catch {
    return false;
  }
}
