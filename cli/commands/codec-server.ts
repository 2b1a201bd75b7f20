import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { ConfigurationError } from '../../core/errors';
import {
  createCodecServer,
  defaultMaxConcurrentRequests,
  defaultMaxQueuedRequests,
  defaultMaxRequestBytes,
} from '../../serve/codec-server';
import { EncryptionCodec } from '../../storage/encryption-codec';
import { isLoopback, normalizeOrigin } from '../../serve/http/origins';
import { loadEncryptionKeys } from '../../storage/encryption-keys';
import { InterruptListener } from '../interrupt';
import { UsageError } from '../help';
import type { Output } from '../output';

export const defaultCodecPort = 8888;
/** The dev server's Web UI, as a browser reaches it. */
export const defaultCorsOrigins = ['http://localhost:8233', 'http://127.0.0.1:8233'];

/**
 * `agent codec-server`: serves Temporal's codec-server protocol with this
 * project's encryption keys, so the Web UI (`--ui-codec-endpoint`,
 * TEMPORAL_CODEC_ENDPOINT) and `temporal --codec-endpoint` show decrypted
 * payloads. Runs until SIGINT or SIGTERM.
 */
export async function codecServerCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      'cors-origin': { type: 'string' },
      'auth-token': { type: 'string' },
      'allow-no-token': { type: 'boolean', default: false },
      'max-request-bytes': { type: 'string' },
      'max-concurrent-requests': { type: 'string' },
      'max-queued-requests': { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new UsageError('codec-server takes no arguments');
  const port = values.port === undefined ? defaultCodecPort : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be a port number, got "${values.port}"`);
  const corsSetting = values['cors-origin'] ?? process.env.AGENT_CODEC_CORS_ORIGINS;
  const allowedOrigins = corsSetting
    ? corsSetting
        .split(',')
        .map((origin) => normalizeOrigin(origin.trim()))
        .filter(Boolean)
    : defaultCorsOrigins;
  // An empty token (an unset variable passed as `--auth-token "$X"`) is no token.
  const authToken = (values['auth-token'] ?? process.env.AGENT_CODEC_AUTH_TOKEN) || undefined;
  if (!authToken && !isLoopback(values.host) && !values['allow-no-token']) {
    throw new UsageError(
      `codec-server would listen on ${values.host} with no token: anyone who reaches that address could decrypt every payload. ` +
        'Set --auth-token (or AGENT_CODEC_AUTH_TOKEN), listen on a loopback address (--host 127.0.0.1), ' +
        'or pass --allow-no-token if something in front of it checks who calls',
    );
  }
  const limits = {
    maxRequestBytes: positive('--max-request-bytes', values['max-request-bytes'], defaultMaxRequestBytes),
    maxConcurrentRequests: positive('--max-concurrent-requests', values['max-concurrent-requests'], defaultMaxConcurrentRequests),
    maxQueuedRequests: positive('--max-queued-requests', values['max-queued-requests'], defaultMaxQueuedRequests, 0),
  };

  const keys = loadEncryptionKeys();
  if (!keys)
    throw new ConfigurationError(
      'codec-server needs the encryption keys: set AGENT_ENCRYPTION_KEYS or AGENT_ENCRYPTION_KEY_FILE',
    );

  const server = createCodecServer({ codec: new EncryptionCodec(keys), allowedOrigins, authToken, ...limits, log: output.error });
  const interrupt = new InterruptListener();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, values.host, () => resolve());
    });
    const { port: listening } = server.address() as AddressInfo;
    output.info(
      `codec server listening on http://${values.host}:${listening} (keys: ${[...keys.byId.keys()].join(', ')}; encrypting with "${keys.current.id}"; ` +
        `CORS origins: ${allowedOrigins.join(', ')}; ${authToken ? 'token required' : 'no token required'}; ` +
        `bodies up to ${limits.maxRequestBytes} bytes, ${limits.maxConcurrentRequests} converted at once, ${limits.maxQueuedRequests} waiting); Ctrl-C stops it`,
    );
    await interrupt.signalled;
  } finally {
    interrupt.close();
  }
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return 0;
}

/** Where `isLoopback` was first: it lives with the origin checks the web handlers share (serve/http/origins.ts). */
export { isLoopback };

function positive(flag: string, value: string | undefined, fallback: number, minimum = 1): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < minimum)
    throw new UsageError(`${flag} must be a whole number of at least ${minimum}, got "${value}"`);
  return number;
}
