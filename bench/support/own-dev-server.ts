import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { ensureTemporalCli } from '../../cli/dev-server/find-temporal-cli';
import { freePort } from '../../cli/dev-server/free-port';
import { startDevServer } from '../../test/support/dev-server-process';
import { log } from './log';

export interface OwnDevServer {
  address: string;
  nativeConnection: NativeConnection;
  client: Client;
  close(): Promise<void>;
}

/** The built Temporal CLI (a downloaded one has no path to start a server of our own with). */
async function temporalCliPath(): Promise<string> {
  const executable = await ensureTemporalCli(log);
  if (executable.type !== 'existing-path')
    throw new Error('this bench needs a Temporal CLI on this machine (npm run temporal:cli)');
  return executable.path;
}

/**
 * A dev server of a benchmark's own, for settings the shared one cannot have (task queue partitions, fairness), its
 * state in `directory`, with the connections to it; `close` stops it all.
 */
export async function startOwnDevServer(options: {
  directory: string;
  dynamicConfig: string[];
  dataConverter?: DataConverter;
}): Promise<OwnDevServer> {
  const server = await startDevServer({
    cli: await temporalCliPath(),
    port: await freePort(),
    dbFilename: path.join(options.directory, 'db.sqlite'),
    dynamicConfig: options.dynamicConfig,
  });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  return {
    address: server.address,
    nativeConnection,
    client: new Client({ connection, dataConverter: options.dataConverter }),
    async close() {
      await connection.close();
      await nativeConnection.close();
      await server.stop();
    },
  };
}
