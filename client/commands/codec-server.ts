import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { ConfigurationError } from '../../core/errors';
import { createCodecServer } from '../../storage/codec-server';
import { EncryptionCodec } from '../../storage/encryption-codec';
import { loadEncryptionKeys } from '../../storage/encryption-keys';
import { InterruptListener } from '../interrupt';
import { UsageError } from '../usage';
import type { Output } from './output';

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
        .map((origin) => origin.trim().replace(/\/+$/, ''))
        .filter(Boolean)
    : defaultCorsOrigins;
  const authToken = values['auth-token'] ?? (process.env.AGENT_CODEC_AUTH_TOKEN || undefined);

  const keys = loadEncryptionKeys();
  if (!keys)
    throw new ConfigurationError(
      'codec-server needs the encryption keys: set AGENT_ENCRYPTION_KEYS or AGENT_ENCRYPTION_KEY_FILE',
    );

  const server = createCodecServer({ codec: new EncryptionCodec(keys), allowedOrigins, authToken, log: output.error });
  const interrupt = new InterruptListener();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, values.host, () => resolve());
    });
    const { port: listening } = server.address() as AddressInfo;
    output.info(
      `codec server listening on http://${values.host}:${listening} (keys: ${[...keys.byId.keys()].join(', ')}; encrypting with "${keys.current.id}"; ` +
        `CORS origins: ${allowedOrigins.join(', ')}; ${authToken ? 'bearer token required' : 'no token required'}); Ctrl-C stops it`,
    );
    await interrupt.signalled;
  } finally {
    interrupt.close();
  }
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return 0;
}
