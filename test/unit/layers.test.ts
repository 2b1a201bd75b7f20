import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Layers point one way (docs/architecture.md): each folder imports only its own layer and the layers under it, so the
// core never names a feature, and a feature is assembled by the worker. Type-only imports count too: a type names
// the module it comes from as much as a value does. Read from the files, without the compiler, so it costs a second.

const root = path.join(__dirname, '..', '..');

/** The layers, ground first: a folder may import its own layer and those before it. */
const layers: ReadonlyArray<{ layer: string; folders: readonly string[] }> = [
  { layer: 'the core (types and rules, no I/O)', folders: ['core'] },
  {
    layer: 'what the run stands on',
    folders: ['providers', 'tools', 'storage', 'telemetry', 'mcp', 'pricing', 'install'],
  },
  { layer: 'the run and its side effects', folders: ['workflows', 'activities'] },
  { layer: 'definitions and the registry', folders: ['agents'] },
  { layer: 'the composition root and the client', folders: ['worker', 'client'] },
  { layer: 'features', folders: ['evals', 'web', 'serve', 'schedules'] },
  { layer: 'the command and the testing kit', folders: ['cli', 'testing'] },
  // The package's entry points (index.ts is `durable-agent`, workflow.ts `durable-agent/workflow`) export from all.
  { layer: 'the entry points', folders: ['.'] },
];

/** Folders of TypeScript outside the library: they may import anything, and nothing of the library imports them. */
const outsideTheLayers = ['bench', 'examples', 'init-template', 'scripts', 'stack', 'test'];

/**
 * The worker is where features are assembled: these files of it may import the features (the bundle's entry, with
 * each feature's workflows; the features' activities and agents). No other file under the features may.
 */
const compositionRoot = ['worker/workflows.ts', 'worker/features.ts'];

/**
 * Imports that run against the layers and stay, each with its reason. The test fails when one is no longer made, so
 * the list only shrinks.
 */
const exceptions: ReadonlyArray<{ from: string; to: string; why: string }> = [
  // The activities look up what a run names (its agent, tools, providers) in the worker's registry, which is built
  // from the definitions one layer up. They import its type only; the worker hands them the registry it made.
  { from: 'activities/index.ts', to: 'agents/registry.ts', why: 'the registry, as a type' },
  { from: 'activities/prepare-run.ts', to: 'agents/registry.ts', why: 'the registry, as a type' },
  { from: 'activities/model/call-model.ts', to: 'agents/registry.ts', why: 'the registry, as a type' },
  { from: 'activities/mcp/list-tools-activity.ts', to: 'agents/registry.ts', why: 'the registry, as a type' },
];

/** The package's own names, as a file in this repository may import them (tsconfig.json's paths). */
const packageEntries: Record<string, string> = {
  'durable-agent': 'index.ts',
  'durable-agent/workflow': 'workflow.ts',
  'durable-agent/web': 'web/index.ts',
  'durable-agent/testing': 'testing/index.ts',
};

const layerOfFolder = new Map(layers.flatMap(({ folders }, index) => folders.map((folder) => [folder, index] as const)));

/** The top folder of a path relative to the root (`.` for a file at the root). */
function folderOf(file: string): string {
  const parts = file.split('/');
  return parts.length === 1 ? '.' : parts[0];
}

// Every way a module names another: import and export ... from, a bare import, import(), require(), require.resolve().
const specifierPattern =
  /(?:\bfrom\s+|\bimport\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|\brequire\.resolve\s*\(\s*)(['"])([^'"\n]+)\1/g;

/** The specifiers a source imports, by the repository file each names, relative to the root (unresolved ones left out). */
function importedFiles(file: string, source: string, exists: (file: string) => boolean): string[] {
  const targets: string[] = [];
  for (const match of source.matchAll(specifierPattern)) {
    const specifier = match[2];
    let target: string | undefined = packageEntries[specifier];
    if (!target && specifier.startsWith('.')) {
      const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
      target = [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find(exists);
    }
    if (target) targets.push(target);
  }
  return targets;
}

interface Offence {
  from: string;
  to: string;
}

/** The imports of these files that break the rule, as `from -> to` pairs of files relative to the root. */
function offendingImports(sources: ReadonlyMap<string, string>, exists: (file: string) => boolean): Offence[] {
  const offences: Offence[] = [];
  for (const [file, source] of sources) {
    const from = layerOfFolder.get(folderOf(file));
    if (from === undefined) continue;
    for (const target of importedFiles(file, source, exists)) {
      const to = layerOfFolder.get(folderOf(target));
      if (to === undefined || to <= from) continue;
      const featuresLayer = layerOfFolder.get('evals')!;
      if (compositionRoot.includes(file) && to === featuresLayer) continue;
      offences.push({ from: file, to: target });
    }
  }
  return offences;
}

/** Every .ts and .tsx file under a folder of the root (the root's own files for `.`), relative to the root. */
function sourceFiles(folder: string): string[] {
  const directory = path.join(root, folder);
  if (folder === '.')
    return readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
      .map((entry) => entry.name);
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
}

const describeOffence = ({ from, to }: Offence) =>
  `${from} imports ${to}: ${layers[layerOfFolder.get(folderOf(from))!].layer} may not import ${layers[layerOfFolder.get(folderOf(to))!].layer}`;

describe('the layers', () => {
  const files = layers.flatMap(({ folders }) => folders.flatMap(sourceFiles));
  const known = new Set(files);
  const sources = new Map(files.map((file) => [file, readFileSync(path.join(root, file), 'utf8')]));
  const offences = offendingImports(sources, (file) => known.has(file));
  const isException = (offence: Offence) => exceptions.some(({ from, to }) => from === offence.from && to === offence.to);

  it('point one way: no folder imports a layer above its own', () => {
    expect(offences.filter((offence) => !isException(offence)).map(describeOffence)).toEqual([]);
  });

  it('keep only exceptions that are still made', () => {
    const stale = exceptions.filter(({ from, to }) => !offences.some((offence) => offence.from === from && offence.to === to));
    expect(stale).toEqual([]);
  });

  it('place every folder of TypeScript at the root in a layer, or outside the library', () => {
    const folders = readdirSync(root, { withFileTypes: true })
      .filter(
        (entry) =>
          entry.isDirectory() && !entry.name.startsWith('.') && !['node_modules', 'dist', 'coverage'].includes(entry.name),
      )
      .map((entry) => entry.name)
      .filter((folder) => sourceFiles(folder).length > 0);
    expect(folders.filter((folder) => !layerOfFolder.has(folder) && !outsideTheLayers.includes(folder))).toEqual([]);
  });

  it('catch an import that runs up, a type-only one too, and let the worker assemble a feature', () => {
    const probe = new Map([
      ['core/probe.ts', "import type { EvalReport } from '../evals/report';\nexport const x = 1;"],
      ['workflows/probe.ts', "export { evalWorkflow } from '../evals/workflow/eval-workflow';"],
      ['storage/probe.ts', "const guard = require('../serve/http/origins');"],
      ['agents/probe.ts', "import { createAgentRegistry } from './registry';\nimport { x } from '../core/probe';"],
      ['worker/features.ts', "import { evalJudgeAgent } from '../evals/graders/judge-agent';"],
      ['worker/other.ts', "import { evalJudgeAgent } from '../evals/graders/judge-agent';"],
    ]);
    const existing = new Set([
      ...probe.keys(),
      'evals/report/index.ts',
      'evals/workflow/eval-workflow.ts',
      'serve/http/origins.ts',
      'agents/registry.ts',
      'evals/graders/judge-agent.ts',
    ]);
    expect(offendingImports(probe, (file) => existing.has(file)).map(describeOffence)).toEqual([
      'core/probe.ts imports evals/report/index.ts: the core (types and rules, no I/O) may not import features',
      'workflows/probe.ts imports evals/workflow/eval-workflow.ts: the run and its side effects may not import features',
      'storage/probe.ts imports serve/http/origins.ts: what the run stands on may not import features',
      'worker/other.ts imports evals/graders/judge-agent.ts: the composition root and the client may not import features',
    ]);
  });
});
