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
  for (const entry of ['worker/main.ts', 'cli/main.ts']) {
    for (const file of importClosure(path.join(projectRoot, entry)))
      needed.add(path.relative(projectRoot, file).split(path.sep)[0]);
  }
  expect([...needed].filter((folder) => !copied.has(folder)).sort()).toEqual([]);
});

/** One service's block of docker-compose.yml, from its name to the next service. */
function composeService(name: string): string {
  const compose = readFileSync(path.join(projectRoot, 'docker-compose.yml'), 'utf8');
  const block = new RegExp(`^  ${name}:\\n((?:(?:    .*|\\s*)\\n)+)`, 'm').exec(compose);
  if (!block) throw new Error(`no service "${name}" in docker-compose.yml`);
  return block[1];
}

it('the Compose codec server listens on the Compose network only with a token from the environment', () => {
  const codecServer = composeService('codec-server');
  // Beyond loopback, `agent codec-server` refuses to start without a token (test/e2e/codec-server.test.ts).
  const commandLine = /^ +exec node .*$/m.exec(codecServer)?.[0];
  expect(commandLine).toMatch(/codec-server --host 0\.0\.0\.0 --port 8888$/);
  expect(codecServer).not.toContain('--allow-no-token');
  // Passed through from the host or .env, never written into the file, never on the command line (ps shows it).
  expect(codecServer).toMatch(/^ {6}- AGENT_CODEC_AUTH_TOKEN$/m);
  expect(codecServer).not.toMatch(/AGENT_CODEC_AUTH_TOKEN[=:]/);
  expect(commandLine).not.toContain('--auth-token');
  // The Web UI's requests carry what the browser signed in with at the codec server.
  expect(composeService('temporal-ui')).toContain('TEMPORAL_CODEC_INCLUDE_CREDENTIALS: ${AGENT_ENCRYPTION_KEYS:+true}');
});
