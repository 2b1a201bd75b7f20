import { isIP } from 'node:net';

/**
 * Who may call a server from a browser: the one check of `Origin` and `Host` that the web handlers (serve/http/request-guard.ts)
 * and the codec server (serve/codec-server.ts) share. A browser sends a request for any page it shows, to any
 * address, with the user's cookies; what it withholds from another site is the answer, unless the server says
 * otherwise. So a server that acts on a request must itself refuse the sites it does not serve (`Origin`), and the
 * names it is not (`Host`: a page of attacker.example whose name was rebound to 127.0.0.1 is same-origin with the
 * server in the browser's eyes, but still says `Host: attacker.example`).
 */

/** 127.0.0.0/8, ::1 and localhost: only this machine reaches them. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return isIP(bare) === 6 && (bare === '::1' || /^::ffff:127\./.test(bare));
}

/** `https://Example.com:443/` and `https://example.com` are one origin: scheme and host lower case, no default port, no path. */
export function normalizeOrigin(origin: string): string {
  if (origin === '*' || origin === 'null') return origin;
  try {
    return new URL(origin).origin;
  } catch {
    return origin.trim().replace(/\/+$/, '').toLowerCase();
  }
}

/**
 * Whether a request from `origin` may be served. No `Origin` header: not a browser's cross-site request (curl, a
 * server, a same-origin navigation), allowed. Otherwise the origin must be one of `allowed` (`*` allows any), or, when
 * `servedHost` is given (the request's own `Host`, already checked), the same host: the page the server served.
 * `Origin: null` (a sandboxed frame, a file) is allowed only by `null` itself in the list.
 */
export function originAllowed(origin: string | null | undefined, allowed: readonly string[], servedHost?: string): boolean {
  if (origin === null || origin === undefined) return true;
  if (allowed.includes('*')) return true;
  const normalized = normalizeOrigin(origin);
  if (allowed.some((entry) => normalizeOrigin(entry) === normalized)) return true;
  if (servedHost === undefined || normalized === 'null') return false;
  try {
    return new URL(normalized).host === new URL(`http://${servedHost}`).host;
  } catch {
    return false;
  }
}

/**
 * Whether `host` (a `Host` header: a name or address, and a port) names this server. `true` allows any. Otherwise an
 * entry with a port (`localhost:3000`) matches that host and port, one without (`chat.example.com`) that name on any
 * port, and one with a leading dot (`.example.com`, as Vite's `allowedHosts`) the name and every name under it. With
 * `defaults`, loopback names and IP addresses are allowed too: no DNS rebinding can make a browser send those.
 */
export function hostAllowed(host: string | null | undefined, allowed: readonly string[] | true, defaults: boolean): boolean {
  if (allowed === true) return true;
  if (!host) return false;
  let parsed: URL;
  try {
    parsed = new URL(`http://${host}`);
  } catch {
    return false;
  }
  // Exactly one name and port: anything else (a path, a user) is not a Host header a browser sends.
  if (parsed.username || parsed.password || parsed.pathname !== '/' || parsed.search || parsed.hash) return false;
  const name = parsed.hostname.toLowerCase();
  if (defaults && (isLoopback(name) || isIP(name.replace(/^\[(.*)\]$/, '$1')) !== 0)) return true;
  return allowed.some((entry) => hostMatches(entry.trim().toLowerCase(), name, parsed.host));
}

function hostMatches(entry: string, name: string, nameAndPort: string): boolean {
  if (entry.startsWith('.')) return name === entry.slice(1) || name.endsWith(entry);
  try {
    const wanted = new URL(`http://${entry}`);
    // An entry without a port matches any port; `new URL` drops port 80, so compare what the entry spelled.
    return /:\d+$/.test(entry) && !entry.endsWith(']') ? wanted.host === nameAndPort : wanted.hostname === name;
  } catch {
    return false;
  }
}
