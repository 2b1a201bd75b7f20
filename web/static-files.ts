import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * A built page (a Vite `dist`) from `directory`: the file the path names, or index.html for a path without a file
 * extension (the page's own routes). Nothing outside the directory is ever read: `..` and encoded slashes are refused.
 */
export async function serveStatic(request: Request, directory: string): Promise<Response | undefined> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
  let relative: string;
  try {
    relative = decodeURIComponent(new URL(request.url).pathname);
  } catch {
    return undefined;
  }
  if (relative.includes('\0')) return undefined;
  const root = path.resolve(directory);
  let file = path.resolve(root, `.${relative}`);
  if (file !== root && !file.startsWith(`${root}${path.sep}`)) return undefined;
  let found = await stat(file).catch(() => undefined);
  if (found?.isDirectory()) {
    file = path.join(file, 'index.html');
    found = await stat(file).catch(() => undefined);
  }
  if (!found?.isFile()) {
    if (path.extname(relative)) return undefined;
    file = path.join(root, 'index.html');
    found = await stat(file).catch(() => undefined);
    if (!found?.isFile()) return undefined;
  }
  const body = request.method === 'HEAD' ? null : await readFile(file);
  return new Response(body, {
    headers: {
      'content-type': contentTypes[path.extname(file)] ?? 'application/octet-stream',
      // Vite names its assets by content hash: those may be kept; the page itself is asked for again each time.
      'cache-control': file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
    },
  });
}
