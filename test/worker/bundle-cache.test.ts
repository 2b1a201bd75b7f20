import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleCacheFile, cachedWorkflowBundle, readCachedBundle } from '../../worker/bundle-cache';

// The workflows live inside the project, so that `@temporalio/workflow` resolves from its node_modules.
const scratch = path.join(__dirname, '..', '..', '.test-tmp');

describe('the workflow bundle cache', () => {
  let directory: string;
  let cacheDirectory: string;
  let workflowsPath: string;
  let greetingPath: string;

  beforeEach(async () => {
    await mkdir(scratch, { recursive: true });
    directory = await mkdtemp(path.join(scratch, 'bundle-cache-'));
    cacheDirectory = path.join(directory, 'cache');
    workflowsPath = path.join(directory, 'workflows.ts');
    greetingPath = path.join(directory, 'greeting.ts');
    await writeFile(greetingPath, `export const greeting = 'first greeting';\n`);
    await writeFile(
      workflowsPath,
      `import { greeting } from './greeting';\nexport async function greet(): Promise<string> { return greeting; }\n`,
    );
  });

  afterEach(() => rm(directory, { recursive: true, force: true }));

  const bundle = () => cachedWorkflowBundle({ directory: cacheDirectory, workflowsPath, plugins: [], variant: 'plain' });
  const cacheFile = () => bundleCacheFile({ directory: cacheDirectory, workflowsPath, variant: 'plain' });

  it('reuses the bundle on disk while every file it was built from is unchanged', async () => {
    const first = await bundle();
    expect(first.code).toContain('first greeting');
    const written = await stat(cacheFile());
    const second = await bundle();
    expect(second.code).toBe(first.code);
    const after = await stat(cacheFile());
    // Not rebuilt, not rewritten: the same file, untouched.
    expect([after.ino, after.mtimeMs]).toEqual([written.ino, written.mtimeMs]);
  });

  it('rebuilds when a module the workflows import changes, and never serves the stale bundle', async () => {
    await bundle();
    await writeFile(greetingPath, `export const greeting = 'second greeting';\n`);
    expect(await readCachedBundle(cacheFile())).toBeUndefined();
    const rebuilt = await bundle();
    expect(rebuilt.code).toContain('second greeting');
    expect(rebuilt.code).not.toContain('first greeting');
    expect(await readCachedBundle(cacheFile())).toBe(rebuilt.code);
  });

  it('rebuilds a cache file that was cut short or garbled', async () => {
    const good = await bundle();
    const content = await readFile(cacheFile(), 'utf8');
    await writeFile(cacheFile(), content.slice(0, content.length - 1000));
    expect(await readCachedBundle(cacheFile())).toBeUndefined();
    expect((await bundle()).code).toBe(good.code);
    await writeFile(cacheFile(), 'not a manifest\nnor a bundle');
    expect((await bundle()).code).toBe(good.code);
    expect(await readCachedBundle(cacheFile())).toBe(good.code);
  });

  it('leaves one whole file when several builds race to write it', async () => {
    const results = await Promise.all([bundle(), bundle(), bundle()]);
    for (const result of results) expect(result.code).toContain('first greeting');
    expect(await readCachedBundle(cacheFile())).toBe(results[0].code);
    // Every temporary file was renamed into place.
    expect(await readdir(cacheDirectory)).toEqual([path.basename(cacheFile())]);
  });

  it('keeps bundles of different variants (tracing on or off) apart', () => {
    const plain = bundleCacheFile({ directory: cacheDirectory, workflowsPath, variant: 'plain' });
    const tracing = bundleCacheFile({ directory: cacheDirectory, workflowsPath, variant: 'tracing' });
    expect(plain).not.toBe(tracing);
  });
});
