import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

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
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let hasExited = false;
  void exited.then(() => (hasExited = true));

  const stop = async () => {
    if (hasExited) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(killer);
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  while (!(await isReady(endpoint))) {
    if (hasExited) throw new Error(`MinIO exited before it was ready: ${stderr.trim()}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`MinIO did not become ready on ${endpoint}: ${stderr.trim()}`);
    }
    await sleep(100);
  }
  const { accessKeyId, secretAccessKey, dataDirectory } = options;
  return { endpoint, accessKeyId, secretAccessKey, dataDirectory, pid: child.pid!, stop };
}

async function isReady(endpoint: string): Promise<boolean> {
  try {
    const response = await fetch(`${endpoint}/minio/health/ready`, { signal: AbortSignal.timeout(1_000) });
    return response.ok;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
