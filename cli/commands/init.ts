import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError } from '../help';
import { invocationDirectory, type Output } from '../output';
import { packageRoot, packageVersion } from '../../install/package-root';
import { appTemporalDependencies, temporalOverrides, temporalVersion } from '../../install/temporal-copies';

/** The project init copies: agents, a client script, tests and a recorded history (init-template/ in the package). */
const templateDirectory = path.join(packageRoot, 'init-template');

/**
 * The packages the project imports itself, at the versions durable-agent was built and tested with; and protobufjs,
 * which it does not import, so that npm puts protobufjs 8 at its top level for Temporal's packages to share (without
 * it, gRPC's protobufjs 7 may take the top, and history files fail to convert: install/temporal-copies.ts).
 */
const projectDependencies = ['@temporalio/client', '@temporalio/worker', 'protobufjs', 'zod'];
const projectDevDependencies = ['@swc/core', '@swc/jest', '@types/jest', '@types/node', 'jest', 'tsx', 'typescript'];

/**
 * `durable-agent init [dir]`: a project of the user's that works at once: `npm install && npm test` passes, and
 * `npm run agent` runs its agent. It refuses a directory that has anything in it: it never overwrites a file.
 */
export async function initCommand(argv: string[], output: Output): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, options: {} });
  if (positionals.length > 1) throw new UsageError('init takes one directory');
  const target = path.resolve(invocationDirectory(), positionals[0] ?? '.');
  const present = await readdir(target).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  if (present.length > 0) {
    output.error(
      `error: ${target} is not empty (${present.slice(0, 3).join(', ')}…): init writes only into a new or empty directory`,
    );
    return 2;
  }
  await mkdir(target, { recursive: true });
  await cp(templateDirectory, target, { recursive: true });
  await writeFile(path.join(target, 'package.json'), `${JSON.stringify(await projectManifest(target), null, 2)}\n`);
  // npm leaves .gitignore files out of a package, so the template cannot carry one.
  await writeFile(path.join(target, '.gitignore'), 'node_modules/\n');
  const shown = path.relative(invocationDirectory(), target) || '.';
  output.info(`made ${target}: agents.ts, start-run.ts, a test and a recorded history. Next:`);
  output.info(
    [
      ...(shown === '.' ? [] : [`  cd ${shown}`]),
      '  npm install',
      '  npm test',
      '  npm run agent -- run --agent support "Please refund order 8."   (with OPENAI_API_KEY set)',
    ].join('\n'),
  );
  return 0;
}

async function projectManifest(target: string): Promise<Record<string, unknown>> {
  const own = JSON.parse(await readFile(path.join(packageRoot, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const pick = (names: string[], from: Record<string, string>) =>
    Object.fromEntries(names.map((name) => [name, from[name] ?? own.dependencies[name]]));
  return {
    name: path
      .basename(target)
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-'),
    private: true,
    scripts: {
      worker: 'AGENT_DEFINITIONS=agents.ts durable-agent worker',
      agent: 'AGENT_DEFINITIONS=agents.ts durable-agent',
      start: 'tsx start-run.ts',
      test: 'jest',
      typecheck: 'tsc --noEmit',
      record: 'tsx scripts/record-history.ts',
    },
    dependencies: {
      'durable-agent': `^${packageVersion()}`,
      ...pick(projectDependencies, own.dependencies),
      ...Object.fromEntries(appTemporalDependencies.map((name) => [name, temporalVersion(packageRoot)])),
    },
    devDependencies: pick(projectDevDependencies, own.devDependencies),
    // One copy of each Temporal package: durable-agent's Workflow Streams and S3 driver pin older ones exactly. Its
    // own Temporal dependencies are overridden by reference, so that `npm install @temporalio/client` still works.
    overrides: temporalOverrides(packageRoot, appTemporalDependencies),
  };
}
