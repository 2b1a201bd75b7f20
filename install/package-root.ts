import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The directory of durable-agent's own package.json: the repository when the CLI runs from source (cli/…), the
 * installed package when it runs compiled (dist/cli/…). Files the package ships beside dist/ (the chat page, init's
 * template) are found from here, so that both layouts find them.
 */
export const packageRoot: string = findPackageRoot(__dirname);

function findPackageRoot(start: string): string {
  for (let directory = start; ; directory = path.dirname(directory)) {
    const manifest = path.join(directory, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'durable-agent')
      return directory;
    if (path.dirname(directory) === directory) throw new Error(`durable-agent: no package.json of its own above ${start}`);
  }
}

/** durable-agent's own version, as its package.json says. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
}
