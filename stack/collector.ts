import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { parse, stringify } from 'yaml';
import { portAccepts } from '../cli/dev-server/free-port';
import { ServerProcess } from '../cli/dev-server/server-process';

export interface StackCollector {
  /** http://127.0.0.1:PORT: OTLP over HTTP, the value for OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  /** What the collector printed: its debug exporter writes one line per span here. */
  logFile: string;
  stop(): Promise<void>;
}

/**
 * The OpenTelemetry Collector with the compose file's configuration (docker/otel-collector.yaml), changed only
 * where one machine differs from a Compose network: the receivers listen on loopback ports of our own, and the
 * collector's own metrics endpoint (localhost:8888 by default, the codec server's port) is off.
 */
export async function startStackCollector(options: {
  binary: string;
  configFile: string;
  directory: string;
  grpcPort: number;
  httpPort: number;
}): Promise<StackCollector> {
  const config = parse(await readFile(options.configFile, 'utf8')) as CollectorConfig;
  const protocols = config.receivers?.otlp?.protocols;
  if (!protocols?.http) throw new Error(`${options.configFile} has no OTLP/HTTP receiver, which the worker sends to`);
  protocols.http.endpoint = `127.0.0.1:${options.httpPort}`;
  if (protocols.grpc) protocols.grpc.endpoint = `127.0.0.1:${options.grpcPort}`;
  config.service = { ...config.service, telemetry: { metrics: { level: 'none' } } };
  const configFile = `${options.directory}/otel-collector.yaml`;
  await writeFile(configFile, stringify(config));
  const logFile = `${options.directory}/otel-collector.log`;
  const log = openSync(logFile, 'a');
  const child = spawn(options.binary, [`--config=file:${configFile}`], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const server = new ServerProcess(child, `the OpenTelemetry Collector (log: ${logFile})`);
  await server.waitUntilReady(() => portAccepts(options.httpPort), { what: `listening on 127.0.0.1:${options.httpPort}` });
  return { endpoint: `http://127.0.0.1:${options.httpPort}`, logFile, stop: () => server.stop() };
}

interface CollectorConfig {
  receivers?: { otlp?: { protocols?: { grpc?: { endpoint?: string }; http?: { endpoint?: string } } } };
  service?: Record<string, unknown>;
}
