import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const projectRoot = path.join(__dirname, '..', '..');

/** Every project file a module reaches through relative imports and requires, the module included. */
function importClosure(entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/(?:from\s+|require\(\s*|import\(\s*)'(\.{1,2}\/[^']+)'/g)) {
      const target = path.resolve(path.dirname(file), match[1]);
      const resolved = [`${target}.ts`, path.join(target, 'index.ts'), target].find(
        (candidate) => existsSync(candidate) && candidate.endsWith('.ts'),
      );
      if (resolved) pending.push(resolved);
    }
  }
  return seen;
}

it('the worker image copies every folder the worker and the CLI (its codec server) load', () => {
  const dockerfile = readFileSync(path.join(projectRoot, 'Dockerfile'), 'utf8');
  const copied = new Set([...dockerfile.matchAll(/^COPY (\S+) \.\/\1$/gm)].map((match) => match[1]));
  const needed = new Set<string>();
  for (const entry of ['worker/main.ts', 'client/cli.ts']) {
    for (const file of importClosure(path.join(projectRoot, entry)))
      needed.add(path.relative(projectRoot, file).split(path.sep)[0]);
  }
  expect([...needed].filter((folder) => !copied.has(folder)).sort()).toEqual([]);
});
