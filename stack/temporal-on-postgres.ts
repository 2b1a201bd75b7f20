import path from 'node:path';
import type { ComposeValues } from './compose-file';
import { lowFreePorts } from './low-ports';
import { registerNamespace } from './namespace';
import { startPostgres, type Postgres } from './postgres';
import { setUpSchemas } from './schema';
import { serverEnvironment, writeServerConfig } from './server-config';
import type { TemporalServerBuild } from './temporal-server';
import { startTemporalServer, type TemporalServerProcess } from './temporal-process';

export interface TemporalOnPostgres {
  postgres: Postgres;
  server: TemporalServerProcess;
  /** Stops the server, then PostgreSQL. */
  stop(): Promise<void>;
}

/**
 * The compose file's postgresql, temporal and temporal-search-attributes services: PostgreSQL in `directory`,
 * the schemas, the server (frontend on `frontendPort`, its other services on free ports), the `default`
 * namespace and the AgentForkedFrom search attribute. `npm run stack` and the stack benchmark start it.
 */
export async function startTemporalOnPostgres(options: {
  directory: string;
  compose: ComposeValues;
  build: TemporalServerBuild;
  /** The Temporal CLI (its path ends in /temporal, as the compose file's commands call it). */
  cli: string;
  /** The frontend's gRPC port: a free one (below 32768, as the server's other ports) when not given. */
  frontendPort?: number;
  log?: (line: string) => void;
}): Promise<TemporalOnPostgres> {
  const { compose, build, directory } = options;
  const log = options.log ?? (() => {});
  log(`PostgreSQL: ${path.join(directory, 'postgresql')}`);
  const postgres = await startPostgres({
    directory: path.join(directory, 'postgresql'),
    user: compose.postgresUser,
    password: compose.postgresPassword,
  });
  try {
    log(`Schemas temporal and temporal_visibility: temporal-sql-tool ${build.version}`);
    await setUpSchemas(build.sqlTool, build.postgresSchemaDirectory, compose, postgres);
    const configDirectory = path.join(directory, 'temporal-config');
    await writeServerConfig(build.configTemplate, configDirectory);
    const [
      frontendHttp,
      frontendMembership,
      history,
      historyMembership,
      matching,
      matchingMembership,
      worker,
      workerMembership,
      free,
    ] = await lowFreePorts(9);
    const frontendPort = options.frontendPort ?? free;
    const address = `127.0.0.1:${frontendPort}`;
    log(`Temporal server ${build.version} on ${address}`);
    const server = await startTemporalServer({
      server: build.server,
      configDirectory,
      environment: serverEnvironment(compose, postgres, {
        frontendGrpc: frontendPort,
        frontendHttp,
        frontendMembership,
        history,
        historyMembership,
        matching,
        matchingMembership,
        worker,
        workerMembership,
      }),
      address,
      logFile: path.join(directory, 'temporal-server.log'),
      cli: options.cli,
    });
    try {
      await registerNamespace(options.cli, address, compose);
    } catch (error) {
      await server.stop();
      throw error;
    }
    return {
      postgres,
      server,
      async stop() {
        await server.stop();
        await postgres.stop();
      },
    };
  } catch (error) {
    await postgres.stop();
    throw error;
  }
}
