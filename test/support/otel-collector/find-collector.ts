import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheDirectory } from '../../../cli/dev-server/find-temporal-cli';
import { findExecutable, hasGo, runCommand } from '../../../cli/dev-server/build-tools';

/**
 * The tests' OTLP receiver: an OpenTelemetry Collector with the OTLP receiver
 * and the file exporter, built from builder-config.yaml by the official
 * OpenTelemetry Collector Builder at this version.
 */
export const builderVersion = 'v0.159.0';
const builderModule = 'go.opentelemetry.io/collector/cmd/builder';
const manifestPath = path.join(__dirname, 'builder-config.yaml');
const binaryName = 'otelcol-durable-agent';

/** The cached build, named after the builder version and the manifest's content, so editing the manifest rebuilds. */
export function cachedCollectorPath(env: NodeJS.ProcessEnv = process.env): string {
  const manifestHash = createHash('sha256').update(readFileSync(manifestPath)).digest('hex').slice(0, 8);
  return path.join(cacheDirectory(env), 'otelcol', `${builderVersion}-${manifestHash}`, binaryName);
}

/**
 * Looks for the collector: OTELCOL_PATH (any collector with the `otlp` receiver and
 * the `file` exporter, e.g. otelcol-contrib), then the project's cache.
 */
export function findCollector(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  return findExecutable(env, { variable: 'OTELCOL_PATH', cached: () => cachedCollectorPath(env) });
}

/**
 * Finds the collector, or builds it into the cache (about two minutes on two
 * cores, once): `go install` the builder, which generates the collector's
 * sources from the manifest, resolves its modules and compiles it.
 */
export async function ensureCollector(log: (line: string) => void = () => {}): Promise<string> {
  const found = await findCollector();
  if (found) return found;
  if (!(await hasGo())) {
    throw new Error(
      'the OpenTelemetry Collector is not built and Go is not available to build it: install Go, or set OTELCOL_PATH',
    );
  }
  const target = cachedCollectorPath();
  const root = path.dirname(path.dirname(target));
  const started = Date.now();
  log(
    `Building the OpenTelemetry Collector (builder ${builderVersion}) into ${path.dirname(target)} (once; takes a few minutes)...`,
  );
  const builderDirectory = path.join(root, `builder-${builderVersion}`);
  await mkdir(builderDirectory, { recursive: true });
  await runCommand('go', ['install', `${builderModule}@${builderVersion}`], {
    ...process.env,
    GOBIN: builderDirectory,
    CGO_ENABLED: '0',
  });

  // The builder writes sources and the binary to the manifest's output_path: a scratch directory next to the cache entry.
  const buildDirectory = await mkdtemp(path.join(root, 'build-'));
  try {
    const manifest = (await readFile(manifestPath, 'utf8')).replace(
      /^ {2}output_path: .*$/m,
      `  output_path: ${JSON.stringify(buildDirectory)}`,
    );
    const manifestCopy = path.join(buildDirectory, 'builder-config.yaml');
    await writeFile(manifestCopy, manifest);
    await runCommand(path.join(builderDirectory, 'builder'), [`--config=${manifestCopy}`], { ...process.env, CGO_ENABLED: '0' });
    await mkdir(path.dirname(target), { recursive: true });
    await rename(path.join(buildDirectory, binaryName), target);
  } finally {
    await rm(buildDirectory, { recursive: true, force: true });
  }
  log(`Built the OpenTelemetry Collector in ${Math.round((Date.now() - started) / 1000)} s: ${target}`);
  return target;
}
