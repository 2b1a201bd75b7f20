import { isLoopback } from '../serve/http/origins';
import { minProxySecretLength, proxyPrincipal } from '../serve/http/trusted-proxy';
import { UsageError } from './help';

/** The flags of `agent serve` and `agent mcp --http` that say who a request is. */
export const principalOptions = {
  'principal-header': { type: 'string' },
  'proxy-secret-env': { type: 'string' },
  'trusted-proxy': { type: 'string' },
  'allow-unauthenticated': { type: 'boolean', default: false },
} as const;

export interface PrincipalFlags {
  'principal-header'?: string;
  'proxy-secret-env'?: string;
  'trusted-proxy'?: string;
  'allow-unauthenticated'?: boolean;
}

/**
 * Who each request is, from the flags, or a refusal before anything listens (exit 2). No --principal-header: the one
 * user `local`, on loopback only. A header is believed from a proxy that proves itself (--proxy-secret-env: the
 * variable holding the secret it sends in X-Proxy-Secret; --trusted-proxy: the addresses it connects from); beyond
 * loopback an unproven header is refused, since anyone who reaches the port could write it. --allow-unauthenticated
 * is the operator saying something else guards the address (a firewall, a network only the proxy is on).
 */
export function principalFromFlags(
  command: 'serve' | 'mcp',
  host: string,
  values: PrincipalFlags,
): (request: Request) => string | undefined {
  const header = values['principal-header'];
  const secretVariable = values['proxy-secret-env'];
  const proxies =
    values['trusted-proxy'] !== undefined
      ? values['trusted-proxy']
          .split(',')
          .map((entry) => entry.trim())
          .filter(Boolean)
      : undefined;
  const proven = secretVariable !== undefined || proxies !== undefined;
  const open = !isLoopback(host) && !values['allow-unauthenticated'];
  const drive = command === 'serve' ? 'read and drive every chat' : 'start and read every run';
  if (!header) {
    if (proven)
      throw new UsageError('--proxy-secret-env and --trusted-proxy prove the proxy that sets --principal-header: name it');
    if (open)
      throw new UsageError(
        `${command} would listen on ${host} with every request taken as the one user "local": anyone who reaches that ` +
          `address could ${drive}, and run its tools on the workspace. Listen on a loopback address ` +
          '(--host 127.0.0.1, the default), put a proxy that signs people in in front and name the header it sets ' +
          '(--principal-header X-User), or pass --allow-unauthenticated if something else guards the address',
      );
    return () => 'local';
  }
  if (!proven && open)
    throw new UsageError(
      `${command} would listen on ${host} and believe ${header} from anyone who reaches that address: a client that ` +
        `writes "${header}: alice" would be alice. Say how the proxy that sets it proves itself: --proxy-secret-env NAME ` +
        '(a variable holding a secret the proxy sends in X-Proxy-Secret) and/or --trusted-proxy ADDR[,ADDR] (the ' +
        'addresses it connects from), or pass --allow-unauthenticated if only the proxy can reach the address',
    );
  let secret: string | undefined;
  if (secretVariable !== undefined) {
    secret = process.env[secretVariable];
    if (!secret || secret.length < minProxySecretLength)
      throw new UsageError(
        `--proxy-secret-env ${secretVariable}: ${secret ? `the secret is shorter than ${minProxySecretLength} characters` : 'that variable is not set'}; ` +
          'set it to a long random string (openssl rand -hex 32) that the proxy sends in X-Proxy-Secret',
      );
  }
  try {
    return proxyPrincipal({ header, secret, trustedProxies: proxies });
  } catch (error) {
    throw new UsageError(`--trusted-proxy: ${(error as Error).message}`);
  }
}
