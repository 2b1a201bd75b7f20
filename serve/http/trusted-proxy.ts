import { createHash, timingSafeEqual } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { peerAddress } from './node-listener';

/**
 * A principal from a header, believed only from the proxy that signed the person in: a header is a string any client
 * that reaches the port can write (`X-User: alice` read alice's chats), so the proxy proves itself on every request,
 * by a secret only it and this server know, sent in `X-Proxy-Secret`, and/or by the address it connects from. Every
 * proof configured must hold; a request that fails one has no principal (401), whatever its header says.
 */
export interface ProxyPrincipalOptions {
  /** The header the proxy sets to the signed-in user (`X-User`). */
  header: string;
  /** The secret the proxy sends in `X-Proxy-Secret` on every request (compared in constant time). */
  secret?: string;
  /** The addresses the proxy connects from: `10.0.0.5`, `fd00::5`, or networks `10.0.0.0/24` (toNodeListener's peer). */
  trustedProxies?: readonly string[];
}

/** The header a proxy proves itself with. */
export const proxySecretHeader = 'x-proxy-secret';

/** A secret shorter than this could be guessed by trying. */
export const minProxySecretLength = 16;

/** `authorize` for a handler behind a proxy that proves itself (ProxyPrincipalOptions). */
export function proxyPrincipal(options: ProxyPrincipalOptions): (request: Request) => string | undefined {
  const header = options.header.toLowerCase();
  if (options.secret !== undefined && options.secret.length < minProxySecretLength)
    throw new Error(`the proxy secret is shorter than ${minProxySecretLength} characters: it could be guessed`);
  const secret = options.secret === undefined ? undefined : digest(options.secret);
  const proxies = options.trustedProxies && trustedAddresses(options.trustedProxies);
  return (request) => {
    if (secret) {
      const sent = request.headers.get(proxySecretHeader);
      // Digests of both: equal lengths for timingSafeEqual, and the time says nothing of the secret's length.
      if (sent === null || !timingSafeEqual(digest(sent), secret)) return undefined;
    }
    if (proxies) {
      const peer = peerAddress(request);
      if (peer === undefined || !addressIn(proxies, peer)) return undefined;
    }
    return request.headers.get(header) ?? undefined;
  };
}

/**
 * The list of trusted proxy addresses, each an address or a network (`ADDR/PREFIX`); a malformed entry throws, naming
 * it, so that a typo is a refusal at start-up rather than a proxy refused at every request.
 */
export function trustedAddresses(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix, extra] = entry.trim().split('/');
    const family = isIP(address);
    const bits = prefix === undefined ? undefined : Number(prefix);
    const maxBits = family === 4 ? 32 : 128;
    if (family === 0 || extra !== undefined || (bits !== undefined && !(Number.isInteger(bits) && bits >= 0 && bits <= maxBits)))
      throw new Error(`"${entry}" is not an address or a network (10.0.0.5, fd00::5, 10.0.0.0/24)`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, bits, type);
  }
  return list;
}

function addressIn(list: BlockList, address: string): boolean {
  // A dual-stack socket reports an IPv4 peer as ::ffff:10.0.0.5.
  const bare = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  const family = isIP(bare);
  return family !== 0 && list.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
