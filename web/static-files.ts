import path from 'node:path';
import { openInWorkspace, WorkspaceRefusal, type OpenedInWorkspace } from '../tools/open-in-workspace';

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
 * extension (the page's own routes). Nothing outside the directory is ever read, and no race can make it so: the
 * file is opened one component at a time from the directory's descriptor, what was opened is checked (its real path
 * inside the directory, a regular file with one link), and that descriptor is read (openInWorkspace, the tools'
 * confinement). A symlink that leads out, `..`, a FIFO or a device is answered like a missing file.
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
  // Lexically first: `..` out of the directory is never walked at all.
  const file = path.resolve(root, `.${relative}`);
  if (file !== root && !file.startsWith(`${root}${path.sep}`)) return undefined;
  const named = path.relative(root, file) || '.';
  const opened =
    (await openFile(root, named)) ??
    (await openFile(root, path.join(named, 'index.html'))) ??
    (path.extname(relative) ? undefined : await openFile(root, 'index.html'));
  if (!opened) return undefined;
  try {
    const body = request.method === 'HEAD' ? null : await opened.handle.readFile();
    return new Response(body, {
      headers: {
        'content-type': contentTypes[path.extname(opened.relative)] ?? 'application/octet-stream',
        // Vite names its assets by content hash: those may be kept; the page itself is asked for again each time.
        'cache-control': opened.relative.split('/').includes('assets') ? 'public, max-age=31536000, immutable' : 'no-cache',
      },
    });
  } finally {
    await opened.handle.close();
  }
}

/** The regular file `relative` names inside `root`, opened and checked; undefined for anything else or anything refused. */
async function openFile(root: string, relative: string): Promise<OpenedInWorkspace | undefined> {
  const opened = await openInWorkspace(root, relative, 'entry').catch((error: unknown) => {
    if (error instanceof WorkspaceRefusal) return undefined;
    throw error;
  });
  if (opened && !opened.info.isFile()) {
    await opened.handle.close();
    return undefined;
  }
  return opened;
}
