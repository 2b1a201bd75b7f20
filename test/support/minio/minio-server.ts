import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { freePort } from '../../../cli/dev-server/free-port';
import { ServerProcess } from '../../../cli/dev-server/server-process';

export interface MinioServer {
  /** http://127.0.0.1:PORT, the value for AWS_ENDPOINT_URL. */
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  dataDirectory: string;
  pid: number;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and waits until it has exited. */
  stop(): Promise<void>;
}

export interface MinioOptions {
  binary: string;
  /** Where the server keeps its objects (a single-drive deployment). */
  dataDirectory: string;
  accessKeyId: string;
  /** At least 8 characters (MinIO's rule). */
  secretAccessKey: string;
  /** A fixed port, e.g. to restart a server where its clients expect it; a free one by default. */
  port?: number;
  readyTimeoutMs?: number;
}

/** Starts a MinIO server on a loopback port and resolves once it answers its readiness probe. */
export async function startMinio(options: MinioOptions): Promise<MinioServer> {
  await mkdir(options.dataDirectory, { recursive: true });
  const port = options.port ?? (await freePort());
  const endpoint = `http://127.0.0.1:${port}`;
  const child = spawn(options.binary, ['server', options.dataDirectory, '--address', `127.0.0.1:${port}`, '--quiet'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MINIO_ROOT_USER: options.accessKeyId,
      MINIO_ROOT_PASSWORD: options.secretAccessKey,
      // Only the S3 API is needed: no web console, no update checks.
      MINIO_BROWSER: 'off',
      MINIO_UPDATE: 'off',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const server = new ServerProcess(child, 'MinIO');
  await server.waitUntilReady(() => isReady(endpoint), {
    what: `its readiness probe on ${endpoint}`,
    timeoutMs: options.readyTimeoutMs,
  });
  const { accessKeyId, secretAccessKey, dataDirectory } = options;
  return { endpoint, accessKeyId, secretAccessKey, dataDirectory, pid: server.pid, stop: () => server.stop() };
}

async function isReady(endpoint: string): Promise<boolean> {
  try {
    const response = await fetch(`${endpoint}/minio/health/ready`, { signal: AbortSignal.timeout(1_000) });
    return response.ok;
  } catch {
    return false;
  }
}
