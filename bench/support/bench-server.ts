import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { NativeConnection } from '@temporalio/worker';
import { eagerActivityArgs, liftedDispatchArgs } from '../../cli/dev-server/dev-server-options';
import { ensureTemporalCli } from '../../cli/dev-server/find-temporal-cli';
import { log } from './log';

/**
 * How a benchmark's dev server is configured. `project` is what `npm run agent`
 * and the tests start (dispatch limit lifted, eager activities on); `no-eager` is
 * the same without eager activity execution: the floor before issue 13.
 */
export type ServerSetting = 'project' | 'no-eager';

export const serverArgs: Record<ServerSetting, string[]> = {
  project: [...liftedDispatchArgs, ...eagerActivityArgs],
  'no-eager': liftedDispatchArgs,
};

export const serverLabels: Record<ServerSetting, string> = {
  project: 'eager on',
  'no-eager': 'eager off',
};

/** A dev server of the benchmark's own, and the connections workers and clients use. */
export interface BenchServer {
  setting: ServerSetting;
  address: string;
  namespace: string;
  /** For workers. */
  nativeConnection: NativeConnection;
  /** For clients; it accepts messages as large as a long history's pages. */
  connection: Connection;
  close(): Promise<void>;
}

// gRPC's default 4 MB message limit is too small for a page of a long history
// when events carry whole conversations; the server bounds its pages, not this client.
const maxReceiveBytes = 256 * 1024 * 1024;

export async function startBenchServer(setting: ServerSetting): Promise<BenchServer> {
  const executable = await ensureTemporalCli(log);
  const environment = await TestWorkflowEnvironment.createLocal({
    // --output none keeps the server's start-up banner off stdout, which holds only the tables.
    server: { executable, ip: '127.0.0.1', extraArgs: ['--output', 'none', '--log-level', 'error', ...serverArgs[setting]] },
  });
  try {
    const connection = await Connection.connect({
      address: environment.address,
      channelArgs: { 'grpc.max_receive_message_length': maxReceiveBytes },
    });
    return {
      setting,
      address: environment.address,
      namespace: environment.namespace ?? 'default',
      nativeConnection: environment.nativeConnection,
      connection,
      async close() {
        await connection.close();
        await environment.teardown();
      },
    };
  } catch (error) {
    await environment.teardown();
    throw error;
  }
}
