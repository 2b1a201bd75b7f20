import { isIP } from 'node:net';

/** 127.0.0.0/8, ::1 and localhost: only this machine reaches them. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return isIP(bare) === 6 && (bare === '::1' || /^::ffff:127\./.test(bare));
}
