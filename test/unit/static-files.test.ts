import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startSymlinkSwapper } from '../support/symlink-swapper';
import { makeWorkspace } from '../support/workspace';
import { serveStatic } from '../../web/static-files';

// `agent serve --static DIR`: nothing outside DIR is ever served, symlinks out of it included, and no race between
// a check and the open makes it so (issue 29, item 5). The page's own files are, through a symlink inside it too.

/** A page directory and, beside it, `outside/` holding a secret under the same names as the page's files. */
async function pageBesideOutside() {
  const parent = await makeWorkspace();
  const page = path.join(parent, 'page');
  const outside = path.join(parent, 'outside');
  await mkdir(path.join(page, 'assets'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(page, 'index.html'), '<p>page</p>');
  await writeFile(path.join(page, 'assets', 'app.js'), 'inside');
  await writeFile(path.join(outside, 'app.js'), 'OUTSIDE SECRET');
  return { page, outside };
}

async function get(directory: string, route: string): Promise<{ status: number; body: string } | undefined> {
  const response = await serveStatic(new Request(`http://127.0.0.1${route}`), directory);
  return response && { status: response.status, body: await response.text() };
}

it('serves the files of the page, through symlinks inside it too, and nothing a symlink out of it names', async () => {
  const { page, outside } = await pageBesideOutside();
  await symlink(path.join(outside, 'app.js'), path.join(page, 'secret.js'));
  await symlink(outside, path.join(page, 'out'));
  await symlink('assets/app.js', path.join(page, 'same.js'));
  expect(await get(page, '/assets/app.js')).toEqual({ status: 200, body: 'inside' });
  expect(await get(page, '/same.js')).toEqual({ status: 200, body: 'inside' });
  expect(await get(page, '/some/route')).toEqual({ status: 200, body: '<p>page</p>' });
  expect(await get(page, '/secret.js')).toBeUndefined();
  expect(await get(page, '/out/app.js')).toBeUndefined();
  // A route without an extension under a link out: the page itself, never the directory outside.
  expect(await get(page, '/out')).toEqual({ status: 200, body: '<p>page</p>' });
});

it('never serves the outside while another process swaps a symlink between an inside and an outside directory', async () => {
  const { page, outside } = await pageBesideOutside();
  await symlink('assets', path.join(page, 'swap'));
  const swapper = await startSymlinkSwapper(path.join(page, 'swap'), 'assets', outside, 60);
  const bodies = new Map<string, number>();
  try {
    for (let request = 0; request < 400; request++) {
      const answer = await get(page, '/swap/app.js');
      const body = answer?.body ?? '(not served)';
      bodies.set(body, (bodies.get(body) ?? 0) + 1);
    }
  } finally {
    expect(await swapper.stop()).toBeGreaterThan(0);
  }
  expect([...bodies.keys()].filter((body) => body.includes('SECRET'))).toEqual([]);
  // The race was run: the link pointed inside for some requests, which were served.
  expect(bodies.get('inside')).toBeGreaterThan(0);
});
