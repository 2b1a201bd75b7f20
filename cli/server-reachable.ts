import net from 'node:net';
import { ConfigurationError } from '../core/errors';
import { programName } from './help';

/** How long a configured address may take to accept a TCP connection before the command gives up on it. */
const probeMs = 3_000;

/**
 * Fails at once, naming the address and the ways out, when nothing accepts connections at the configured Temporal
 * address. Without it the client's own connect waited 10 s or more and said only "Failed to connect before the
 * deadline". A TCP connection is all it asks: TLS and API keys are left to the client.
 */
export async function assertTemporalReachable(address: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const problem = await tcpProblem(address);
  if (problem) throw new ConfigurationError(unreachableMessage(address, problem, env));
}

/** What a person reads when the server at a configured address does not answer (also for the client's own deadline). */
export function unreachableMessage(address: string, reason: string, env: NodeJS.ProcessEnv = process.env): string {
  const source = env.TEMPORAL_ADDRESS ? 'TEMPORAL_ADDRESS' : 'the Temporal config profile';
  const unset = env.TEMPORAL_ADDRESS ? 'unset TEMPORAL_ADDRESS' : 'leave the address out of the profile';
  return (
    `no Temporal server answers at ${address} (${source}): ${reason}. ` +
    `Start one there (\`${programName} dev\` keeps a local one on localhost:7233, with its Web UI), ` +
    `or ${unset} and this command starts its own embedded dev server`
  );
}

function tcpProblem(address: string): Promise<string | undefined> {
  const { host, port } = hostAndPort(address);
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: probeMs });
    const done = (problem: string | undefined) => {
      socket.destroy();
      resolve(problem);
    };
    socket.once('connect', () => done(undefined));
    socket.once('timeout', () => done(`no connection within ${probeMs / 1000} s`));
    socket.once('error', (error: NodeJS.ErrnoException) => done(connectionError(error)));
  });
}

function connectionError(error: NodeJS.ErrnoException): string {
  if (error.code === 'ECONNREFUSED') return 'the connection was refused';
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return 'the host name does not resolve';
  return error.code ? `${error.code} (${error.message})` : error.message;
}

/** `host:port`, `[::1]:7233`, or a host alone (Temporal's port 7233). */
function hostAndPort(address: string): { host: string; port: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(address);
  if (bracketed) return { host: bracketed[1], port: Number(bracketed[2] ?? 7233) };
  const colon = address.lastIndexOf(':');
  if (colon < 0 || address.indexOf(':') !== colon) return { host: address, port: 7233 };
  return { host: address.slice(0, colon), port: Number(address.slice(colon + 1)) };
}
