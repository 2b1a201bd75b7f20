import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { freePorts } from '../cli/dev-server/free-port';
import { ensureTemporalCli } from '../cli/dev-server/find-temporal-cli';
import { ensureMinio } from '../test/support/minio/find-minio';
import { ensureCollector } from '../test/support/otel-collector/find-collector';
import { startStackCollector } from './collector';
import { projectRoot, readComposeFile, type ComposeValues } from './compose-file';
import { startNodeProcess, type NodeProcess } from './node-process';
import { startObjectStore } from './object-store';
import type { Postgres } from './postgres';
import { startTemporalOnPostgres } from './temporal-on-postgres';
import { ensureTemporalServer } from './temporal-server';
import type { TemporalServerProcess } from './temporal-process';
import { startWebUi } from './web-ui';

export interface StackOptions {
  /** Where PostgreSQL, MinIO and the logs keep their files; a second start on the same directory reuses them. */
  directory: string;
  workers: number;
  /** Free loopback ports for everything, instead of the ports the compose file publishes (7233, 8080, 9000, 4318, 8888). */
  freePorts?: boolean;
  /** The environment the compose file is read against (the host's, or a .env file's, in Compose). */
  env?: NodeJS.ProcessEnv;
  /** Variables for the workers beyond the compose file's (e.g. AGENT_DEFINITIONS, AGENT_WORKFLOW_BUNDLE). */
  workerEnv?: Record<string, string>;
  log?: (line: string) => void;
}

export interface Stack {
  compose: ComposeValues;
  /** Where PostgreSQL listens, and which one it is (the machine's: its version and programs). */
  postgres: Pick<Postgres, 'host' | 'port' | 'version' | 'binaries'>;
  temporal: TemporalServerProcess;
  webUiUrl: string;
  s3Endpoint: string;
  collector: { endpoint: string; logFile: string };
  codecServerUrl?: string;
  workers: NodeProcess[];
  /** The directory the workers serve workspaces under (a run's --workspace must be inside it). */
  workspaceRoot: string;
  /** What a CLI on this machine sets to use the stack, as docs/docker-compose.md tells the host's CLI. */
  clientEnvironment: Record<string, string>;
  /** Starts one more worker with the stack's worker environment. */
  addWorker(): Promise<NodeProcess>;
  /** Stops everything, the workers first (they drain), PostgreSQL last. */
  stop(): Promise<void>;
}

const composePorts = { temporal: 7233, ui: 8080, minio: 9000, otlpGrpc: 4317, otlpHttp: 4318, codec: 8888 };

/** Brings up docker-compose.yml's topology as processes on this machine, in the compose file's order. */
export async function startStack(options: StackOptions): Promise<Stack> {
  const log = options.log ?? (() => {});
  const env = options.env ?? process.env;
  const compose = readComposeFile(env);
  const directory = path.resolve(options.directory);
  await mkdir(directory, { recursive: true });
  const [build, cli, minioBinary, collectorBinary] = await Promise.all([
    ensureTemporalServer(log),
    ensureTemporalCli(log),
    ensureMinio(log),
    ensureCollector(log),
  ]);
  if (cli.type !== 'existing-path')
    throw new Error('the stack needs a Temporal CLI binary: run npm run temporal:cli (it builds one with Go)');

  const [ui, minio, otlpGrpc, otlpHttp, codec] = options.freePorts
    ? await freePorts(5)
    : [composePorts.ui, composePorts.minio, composePorts.otlpGrpc, composePorts.otlpHttp, composePorts.codec];
  // With --free-ports the server's frontend port is chosen with its other ports (below 32768: stack/low-ports.ts).
  const temporal = options.freePorts ? undefined : composePorts.temporal;

  const stoppers: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const stopOne of stoppers.splice(0).reverse())
      await stopOne().catch((error: Error) => log(`stopping: ${error.message}`));
  };
  try {
    const temporalOnPostgres = await startTemporalOnPostgres({
      directory,
      compose,
      build,
      cli: cli.path,
      frontendPort: temporal,
      log,
    });
    stoppers.push(temporalOnPostgres.stop);
    const { postgres, server } = temporalOnPostgres;
    const address = server.address;

    const objectStore = await startObjectStore({
      binary: minioBinary,
      dataDirectory: path.join(directory, 'minio'),
      user: compose.minioUser,
      password: compose.minioPassword,
      bucket: compose.bucket,
      port: minio,
    });
    stoppers.push(objectStore.stop);
    const collector = await startStackCollector({
      binary: collectorBinary,
      configFile: compose.collectorConfigFile,
      directory,
      grpcPort: otlpGrpc,
      httpPort: otlpHttp,
    });
    stoppers.push(collector.stop);

    // The compose file's codec-server runs only with AGENT_ENCRYPTION_KEYS (without, it says so and exits 0).
    let codecServerUrl: string | undefined;
    const uiOrigins = `http://localhost:${ui},http://127.0.0.1:${ui}`;
    if (compose.workerEnvironment.AGENT_ENCRYPTION_KEYS) {
      const codecServer = await startNodeProcess({
        name: 'the codec server',
        script: 'cli/main.ts',
        // Loopback here, not the Compose network's 0.0.0.0: the token stays optional, as for any loopback codec server.
        args: ['codec-server', '--host', '127.0.0.1', '--port', String(codec)],
        env: { ...compose.codecEnvironment, AGENT_CODEC_CORS_ORIGINS: uiOrigins },
        logFile: path.join(directory, 'codec-server.log'),
        ready: /listening on http/,
      });
      stoppers.push(codecServer.stop);
      codecServerUrl = `http://127.0.0.1:${codec}`;
    }

    const webUi = await startWebUi({
      uiServer: build.uiServer,
      configDirectory: build.uiConfigDirectory,
      composeEnvironment: compose.uiEnvironment,
      temporalAddress: address,
      port: ui,
      codecEndpoint: codecServerUrl && `http://localhost:${codec}`,
      logFile: path.join(directory, 'temporal-ui.log'),
    });
    stoppers.push(webUi.stop);

    const workspaceRoot = compose.workerEnvironment.AGENT_WORKSPACE_ROOT;
    // In Compose the workspace is ./workspace mounted at /workspace; here the worker uses the host directory itself.
    const hostWorkspaceRoot = workspaceRoot === '/workspace' ? path.join(projectRoot, 'workspace') : workspaceRoot;
    await mkdir(hostWorkspaceRoot, { recursive: true });
    const workerEnvironment: Record<string, string> = {
      ...compose.workerEnvironment,
      TEMPORAL_ADDRESS: address,
      AWS_ENDPOINT_URL: objectStore.endpoint,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      AGENT_WORKSPACE_ROOT: hostWorkspaceRoot,
      ...options.workerEnv,
    };
    const workers: NodeProcess[] = [];
    const addWorker = async () => {
      const number = workers.length + 1;
      const started = await startNodeProcess({
        name: `worker ${number}`,
        script: 'worker/main.ts',
        env: workerEnvironment,
        logFile: path.join(directory, `worker-${number}.log`),
        ready: /worker polling task queue/,
        graceMs: 30_000, // the compose file's stop_grace_period
      });
      workers.push(started);
      stoppers.push(started.stop);
      return started;
    };
    for (let count = 0; count < options.workers; count++) await addWorker();

    const clientEnvironment: Record<string, string> = Object.fromEntries(
      Object.entries({
        TEMPORAL_ADDRESS: address,
        TEMPORAL_NAMESPACE: 'default',
        // The CLI's run links point here, not at a dev server's localhost:8233 (cli/web-ui.ts).
        TEMPORAL_UI_URL: webUi.url,
        AGENT_TASK_QUEUE: workerEnvironment.AGENT_TASK_QUEUE,
        AGENT_S3_BUCKET: workerEnvironment.AGENT_S3_BUCKET,
        AGENT_S3_PREFIX: workerEnvironment.AGENT_S3_PREFIX,
        AWS_ENDPOINT_URL: objectStore.endpoint,
        AWS_REGION: workerEnvironment.AWS_REGION,
        AWS_ACCESS_KEY_ID: workerEnvironment.AWS_ACCESS_KEY_ID,
        AWS_SECRET_ACCESS_KEY: workerEnvironment.AWS_SECRET_ACCESS_KEY,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
        AGENT_ENCRYPTION_KEYS: workerEnvironment.AGENT_ENCRYPTION_KEYS,
      }).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''),
    );
    return {
      compose,
      postgres,
      temporal: server,
      webUiUrl: webUi.url,
      s3Endpoint: objectStore.endpoint,
      collector,
      codecServerUrl,
      workers,
      workspaceRoot: hostWorkspaceRoot,
      clientEnvironment,
      addWorker,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
