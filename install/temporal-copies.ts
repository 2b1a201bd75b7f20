import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ConfigurationError } from '../core/errors';

/**
 * Temporal's packages register their protobuf types into protobufjs when they load, so an app that ends up with two
 * copies of `@temporalio/proto` or `@temporalio/common` fails at import with protobufjs's own words (`duplicate name
 * 'ActivityHeartbeat' in Namespace coresdk`), which name neither the cause nor the fix. npm makes such copies when two
 * packages pin different versions exactly, and a dependency's `overrides` do not count: only the app's own do.
 * durable-agent depends on Temporal's Workflow Streams and S3 driver, whose releases pin older Temporal versions
 * exactly (workflow-streams 1.23.0, the S3 packages 1.22.0), so an app that installs durable-agent needs the
 * `overrides` of `temporalOverrides` (`durable-agent init` writes them). These checks find the copies the way Node's
 * resolution would, before anything of Temporal's loads, and name the fix.
 */

/** The packages of which two copies cannot load side by side. */
const singletons = ['@temporalio/proto', '@temporalio/common'];

interface Copy {
  directory: string;
  version: string;
  /** Who resolves to this copy: durable-agent, the app, or one of the Temporal packages. */
  users: string[];
}

/** The directory of `name` as Node would find it from `from` (node_modules folders upwards), or undefined. */
export function findPackage(name: string, from: string): string | undefined {
  for (let directory = from; ; directory = path.dirname(directory)) {
    if (existsSync(path.join(directory, 'node_modules', name, 'package.json')))
      return realpathSync(path.join(directory, 'node_modules', name));
    if (path.dirname(directory) === directory) return undefined;
  }
}

function manifest(directory: string): { version?: string; dependencies?: Record<string, string> } {
  return JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8')) as {
    version?: string;
    dependencies?: Record<string, string>;
  };
}

/** The directories of the @temporalio packages in `base`'s node_modules. */
function temporalPackagesIn(base: string): string[] {
  const scope = path.join(base, 'node_modules', '@temporalio');
  try {
    return readdirSync(scope).map((name) => realpathSync(path.join(scope, name)));
  } catch {
    return [];
  }
}

/** The app that installed durable-agent: the directory holding the node_modules it lies in (none in the repository). */
function appRoot(packageRoot: string): string | undefined {
  const parent = path.dirname(packageRoot);
  return path.basename(parent) === 'node_modules' ? path.dirname(parent) : undefined;
}

/**
 * The copies of each singleton package that durable-agent, its Temporal dependencies and the app itself resolve to:
 * more than one of a package is a crash waiting for the import that loads the second.
 */
export function singletonCopies(packageRoot: string): Map<string, Copy[]> {
  const copies = new Map<string, Map<string, Copy>>(singletons.map((name) => [name, new Map()]));
  const note = (name: string, from: string, user: string) => {
    const directory = findPackage(name, from);
    if (!directory) return;
    const found = copies.get(name)!;
    const copy = found.get(directory) ?? { directory, version: manifest(directory).version ?? '?', users: [] };
    if (!copy.users.includes(user)) copy.users.push(user);
    found.set(directory, copy);
  };
  const temporal = Object.keys(manifest(packageRoot).dependencies ?? {}).filter((name) => name.startsWith('@temporalio/'));
  for (const name of singletons) note(name, packageRoot, 'durable-agent');
  /** What a Temporal package loads of the singletons: those it depends on, as Node finds them from it. */
  const noteDependencies = (directory: string, user: string) => {
    const dependsOn = manifest(directory).dependencies ?? {};
    for (const name of singletons) if (name in dependsOn) note(name, directory, user);
  };
  for (const dependency of temporal) {
    const directory = findPackage(dependency, packageRoot);
    if (directory) noteDependencies(directory, dependency);
  }
  const app = appRoot(packageRoot);
  if (app) for (const name of singletons) note(name, app, 'your app');
  // Every Temporal package installed beside durable-agent or inside it (the app's own @temporalio/workflow-streams,
  // say), with the copies npm nested under it: the import that loads one of them loads those copies.
  for (const base of app ? [app, packageRoot] : [packageRoot]) {
    for (const directory of temporalPackagesIn(base)) noteDependencies(directory, `@temporalio/${path.basename(directory)}`);
  }
  return new Map([...copies].map(([name, found]) => [name, [...found.values()]]));
}

/** The Temporal packages the pinned ones bring copies of: with these overridden, the app has one of each. */
const overridden = [
  '@temporalio/activity',
  '@temporalio/client',
  '@temporalio/common',
  '@temporalio/plugin',
  '@temporalio/proto',
  '@temporalio/workflow',
];

/**
 * The Temporal packages `durable-agent init` makes direct dependencies of a project, so that their overrides can be
 * `$` references: npm refuses (EOVERRIDE) an override of a direct dependency that differs from its spec, so a plain
 * `npm install @temporalio/client` (which writes `^1.24.0`) failed against an override of `1.24.0`.
 */
export const appTemporalDependencies = [
  '@temporalio/activity',
  '@temporalio/client',
  '@temporalio/common',
  '@temporalio/workflow',
];

/**
 * The `overrides` an app's package.json needs: each Temporal package at the version durable-agent is built with,
 * written `$<name>` for each of `direct` (the app's own dependencies), which npm then keeps at the app's version.
 */
export function temporalOverrides(packageRoot: string, direct: readonly string[] = []): Record<string, string> {
  const version = temporalVersion(packageRoot);
  return Object.fromEntries(overridden.map((name) => [name, direct.includes(name) ? `$${name}` : version]));
}

/** The version of Temporal's packages durable-agent is built with. */
export function temporalVersion(packageRoot: string): string {
  const dependencies = manifest(packageRoot).dependencies ?? {};
  const common = findPackage('@temporalio/common', packageRoot);
  const version =
    dependencies['@temporalio/common'] ?? dependencies['@temporalio/client'] ?? (common && manifest(common).version);
  if (!version) throw new Error(`durable-agent: no @temporalio/common found from ${packageRoot}`);
  return version;
}

/** Throws a ConfigurationError naming the `overrides` that make one copy of each, when there is more than one. */
export function checkOneTemporalCopy(packageRoot: string): void {
  const copies = singletonCopies(packageRoot);
  const doubled = [...copies].filter(([, found]) => found.length > 1);
  if (doubled.length === 0) return;
  const app = appRoot(packageRoot);
  // As `durable-agent init` writes them: Temporal's packages an app imports become its own dependencies, so that
  // their overrides are `$` references, which a later `npm install @temporalio/client` keeps (a pinned override of a
  // direct dependency is EOVERRIDE).
  const direct = Object.keys((app && manifest(app).dependencies) ?? {});
  const version = temporalVersion(packageRoot);
  const added = Object.fromEntries(
    appTemporalDependencies.filter((name) => !direct.includes(name)).map((name) => [name, version]),
  );
  const overrides = temporalOverrides(packageRoot, [...direct, ...appTemporalDependencies]);
  const dependencies = Object.keys(added).length > 0 ? `  "dependencies": ${JSON.stringify(added)} (beside yours),\n` : '';
  const described = doubled
    .map(
      ([name, found]) =>
        `${found.length} copies of ${name} (${found.map((copy) => `${copy.version} for ${copy.users.join(', ')}`).join('; ')})`,
    )
    .join(', and ');
  throw new ConfigurationError(
    `durable-agent: this app has ${described}; Temporal's packages cannot load two copies side by side. ` +
      `Add this to your app's package.json, then run npm install again:\n${dependencies}  "overrides": ${JSON.stringify(overrides)}`,
  );
}

/**
 * Reading and writing history files (saveHistory, replays, `durable-agent history`) converts with protobufjs's JSON
 * extension as `@temporalio/common` loads it, over the types `@temporalio/proto` registered in its own: two copies of
 * protobufjs fail with `type must be a Type`. npm makes them when another package's protobufjs 7 takes the app's top
 * level, and each of the two gets a copy of 8 of its own; protobufjs 8 among the app's dependencies gives them one.
 */
export function checkOneProtobufjs(packageRoot: string): void {
  const common = findPackage('@temporalio/common', packageRoot);
  const proto = findPackage('@temporalio/proto', packageRoot);
  if (!common || !proto) return;
  const fromCommon = findPackage('protobufjs', common);
  const fromProto = findPackage('protobufjs', proto);
  if (!fromCommon || !fromProto || fromCommon === fromProto) return;
  const wanted = manifest(common).dependencies?.protobufjs ?? '^8';
  throw new ConfigurationError(
    `durable-agent: @temporalio/common and @temporalio/proto each have a copy of protobufjs of their own ` +
      `(${fromCommon}, ${fromProto}), so history files cannot be read or written ("type must be a Type"). ` +
      `Give your app one copy at the top: npm install 'protobufjs@${wanted}'`,
  );
}
