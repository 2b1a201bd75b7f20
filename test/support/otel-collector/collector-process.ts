import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, portAccepts } from '../../../cli/dev-server/free-port';
import { ServerProcess } from '../../../cli/dev-server/server-process';

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
  const server = new ServerProcess(child, 'the OpenTelemetry Collector');
  const stop = async () => {
    await server.stop();
    await rm(configDirectory, { recursive: true, force: true });
  };
  await server
    .waitUntilReady(() => portAccepts(port), { what: `listening on 127.0.0.1:${port}`, timeoutMs: options.readyTimeoutMs })
    .catch(async (error: unknown) => {
      await rm(configDirectory, { recursive: true, force: true });
      throw error;
    });
  return { endpoint: `http://127.0.0.1:${port}`, spansFile: options.spansFile, pid: server.pid, stop };
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
