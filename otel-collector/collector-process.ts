import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface CollectorProcess {
  /** http://127.0.0.1:PORT: the value for OTEL_EXPORTER_OTLP_ENDPOINT (OTLP over HTTP). */
  endpoint: string;
  /** The file the collector appends every span it receives to: one OTLP JSON export request per line. */
  spansFile: string;
  pid: number;
  /** Stops the collector (SIGTERM, which flushes the file; SIGKILL after 5 s) and waits until it has exited. */
  stop(): Promise<void>;
}

export interface CollectorOptions {
  binary: string;
  spansFile: string;
  readyTimeoutMs?: number;
}

/**
 * Starts an OpenTelemetry Collector that receives OTLP over HTTP on a loopback
 * port and writes every trace it receives to `spansFile` (the file exporter,
 * flushed every 100 ms). Its own telemetry is off, so it opens no other port.
 */
export async function startCollector(options: CollectorOptions): Promise<CollectorProcess> {
  const port = await freePort();
  const configDirectory = await mkdtemp(path.join(os.tmpdir(), 'agent-otelcol-'));
  const configFile = path.join(configDirectory, 'config.yaml');
  await writeFile(configFile, collectorConfig(port, options.spansFile));
  const child = spawn(options.binary, [`--config=file:${configFile}`], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let hasExited = false;
  void exited.then(() => (hasExited = true));

  const stop = async () => {
    if (!hasExited) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    }
    await rm(configDirectory, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  while (!(await accepts(port))) {
    if (hasExited) throw new Error(`the OpenTelemetry Collector exited before it was ready: ${stderr.trim()}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the OpenTelemetry Collector did not listen on 127.0.0.1:${port}: ${stderr.trim()}`);
    }
    await sleep(100);
  }
  return { endpoint: `http://127.0.0.1:${port}`, spansFile: options.spansFile, pid: child.pid!, stop };
}

function collectorConfig(port: number, spansFile: string): string {
  return `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${port}
exporters:
  file:
    path: ${JSON.stringify(spansFile)}
    flush_interval: 100ms
service:
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
`;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
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
