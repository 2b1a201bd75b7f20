import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import {
  appTemporalDependencies,
  checkOneProtobufjs,
  checkOneTemporalCopy,
  temporalOverrides,
} from '../../install/temporal-copies';

// An app's node_modules as npm lays it out, made of package.json files only: the checks read what Node would resolve.

let app: string;
beforeEach(async () => {
  app = await mkdtemp(path.join(os.tmpdir(), 'temporal-copies-'));
});
afterEach(() => rm(app, { recursive: true, force: true }));

async function place(where: string, name: string, version: string, dependencies: Record<string, string> = {}) {
  const directory = path.join(app, where, 'node_modules', name);
  await mkdir(directory, { recursive: true });
  await writeFile(path.join(directory, 'package.json'), JSON.stringify({ name, version, dependencies }));
  return directory;
}

/** durable-agent at the app's top level, with Temporal 1.24.0 hoisted beside it. */
async function installedApp(): Promise<string> {
  await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'app', dependencies: { 'durable-agent': '*' } }));
  const durableAgent = await place('.', 'durable-agent', '0.1.0', {
    '@temporalio/client': '1.24.0',
    '@temporalio/common': '1.24.0',
  });
  await place('.', '@temporalio/client', '1.24.0', { '@temporalio/common': '1.24.0', '@temporalio/proto': '1.24.0' });
  await place('.', '@temporalio/common', '1.24.0', { '@temporalio/proto': '1.24.0', protobufjs: '^8.7.1' });
  await place('.', '@temporalio/proto', '1.24.0', { protobufjs: '^8.7.1' });
  await place('.', 'protobufjs', '8.8.1');
  return durableAgent;
}

it('passes an app with one copy of each Temporal package', async () => {
  const durableAgent = await installedApp();

  expect(() => checkOneTemporalCopy(durableAgent)).not.toThrow();
  expect(() => checkOneProtobufjs(durableAgent)).not.toThrow();
});

it('names the overrides when a package pins an older @temporalio/proto and common of its own', async () => {
  const durableAgent = await installedApp();
  // @temporalio/workflow-streams 1.23.0 pinned its Temporal packages exactly: npm nested its own copies under it.
  const streams = path.join('node_modules', '@temporalio', 'workflow-streams');
  await place('.', '@temporalio/workflow-streams', '1.23.0', {
    '@temporalio/proto': '1.23.0',
    '@temporalio/common': '1.23.0',
  });
  await place(streams, '@temporalio/proto', '1.23.0');
  await place(streams, '@temporalio/common', '1.23.0');
  await writeFile(
    path.join(durableAgent, 'package.json'),
    JSON.stringify({
      name: 'durable-agent',
      dependencies: { '@temporalio/client': '1.24.0', '@temporalio/workflow-streams': '1.23.0' },
    }),
  );

  expect(() => checkOneTemporalCopy(durableAgent)).toThrow(
    "durable-agent: this app has 2 copies of @temporalio/proto (1.24.0 for durable-agent, @temporalio/client, your app, @temporalio/common; 1.23.0 for @temporalio/workflow-streams), and 2 copies of @temporalio/common (1.24.0 for durable-agent, @temporalio/client, your app; 1.23.0 for @temporalio/workflow-streams); Temporal's packages cannot load two copies side by side. Add this to your app's package.json, then run npm install again:\n" +
      '  "dependencies": {"@temporalio/activity":"1.24.0","@temporalio/client":"1.24.0","@temporalio/common":"1.24.0","@temporalio/workflow":"1.24.0"} (beside yours),\n' +
      '  "overrides": {"@temporalio/activity":"$@temporalio/activity","@temporalio/client":"$@temporalio/client","@temporalio/common":"$@temporalio/common","@temporalio/plugin":"1.24.0","@temporalio/proto":"1.24.0","@temporalio/workflow":"$@temporalio/workflow"}',
  );
});

it('writes the override of a Temporal package the app depends on itself as a $ reference, which npm install of it keeps', async () => {
  const durableAgent = await installedApp();
  await writeFile(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'app', dependencies: { 'durable-agent': '*', '@temporalio/client': '^1.24.0' } }),
  );
  await place('.', '@temporalio/workflow-streams', '1.23.0', { '@temporalio/proto': '1.23.0' });
  await place(path.join('node_modules', '@temporalio', 'workflow-streams'), '@temporalio/proto', '1.23.0');

  expect(() => checkOneTemporalCopy(durableAgent)).toThrow(
    '  "dependencies": {"@temporalio/activity":"1.24.0","@temporalio/common":"1.24.0","@temporalio/workflow":"1.24.0"} (beside yours),\n' +
      '  "overrides": {"@temporalio/activity":"$@temporalio/activity","@temporalio/client":"$@temporalio/client","@temporalio/common":"$@temporalio/common","@temporalio/plugin":"1.24.0","@temporalio/proto":"1.24.0","@temporalio/workflow":"$@temporalio/workflow"}',
  );
});

it("sees the app's own older copy when durable-agent's is nested under it", async () => {
  const durableAgent = await installedApp();
  // The app pinned @temporalio/common 1.23.0 itself: npm kept it on top and gave durable-agent a copy of its own.
  await place('.', '@temporalio/common', '1.23.0');
  await place(path.join('node_modules', 'durable-agent'), '@temporalio/common', '1.24.0');

  expect(() => checkOneTemporalCopy(durableAgent)).toThrow(
    /2 copies of @temporalio\/common \(1\.24\.0 for durable-agent.*; 1\.23\.0 for .*your app\)/,
  );
  expect(() => checkOneTemporalCopy(durableAgent)).toThrow(
    '  "overrides": {"@temporalio/activity":"$@temporalio/activity","@temporalio/client":"$@temporalio/client","@temporalio/common":"$@temporalio/common","@temporalio/plugin":"1.24.0","@temporalio/proto":"1.24.0","@temporalio/workflow":"$@temporalio/workflow"}',
  );
});

it('finds the copies nested under a Temporal package the app installed itself, which durable-agent does not use', async () => {
  const durableAgent = await installedApp();
  // The app installed @temporalio/workflow-streams 1.23.0 (it pins its Temporal packages exactly): its import would
  // load the nested 1.23.0 proto beside durable-agent's 1.24.0.
  await place('.', '@temporalio/workflow-streams', '1.23.0', { '@temporalio/proto': '1.23.0' });
  await place(path.join('node_modules', '@temporalio', 'workflow-streams'), '@temporalio/proto', '1.23.0');

  expect(() => checkOneTemporalCopy(durableAgent)).toThrow(
    /2 copies of @temporalio\/proto \(1\.24\.0 for durable-agent, .*; 1\.23\.0 for @temporalio\/workflow-streams\)/,
  );
});

it('names the dependency that gives @temporalio/common and @temporalio/proto one protobufjs', async () => {
  const durableAgent = await installedApp();
  // gRPC's protobufjs 7 took the top level; common and proto each got a copy of 8.
  await place('.', 'protobufjs', '7.6.6');
  await place(path.join('node_modules', '@temporalio', 'common'), 'protobufjs', '8.8.1');
  await place(path.join('node_modules', '@temporalio', 'proto'), 'protobufjs', '8.8.1');

  expect(() => checkOneTemporalCopy(durableAgent)).not.toThrow();
  expect(() => checkOneProtobufjs(durableAgent)).toThrow(
    /each have a copy of protobufjs of their own .* Give your app one copy at the top: npm install 'protobufjs@\^8\.7\.1'$/,
  );
});

it("docs/agents.md gives the overrides the check names and init writes: one version, durable-agent's own", () => {
  const repository = path.join(__dirname, '..', '..');
  const docs = readFileSync(path.join(repository, 'docs', 'agents.md'), 'utf8');
  const block = /```json\n("dependencies": \{[^}]*\},\n"overrides": \{[^`]*\})\n```/.exec(docs)?.[1];
  const own = JSON.parse(readFileSync(path.join(repository, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const version = own.dependencies['@temporalio/common'];
  expect(JSON.parse(`{${block ?? ''}}`)).toEqual({
    dependencies: Object.fromEntries(appTemporalDependencies.map((name) => [name, version])),
    overrides: temporalOverrides(repository, appTemporalDependencies),
  });
  // Each override is durable-agent's version, or a reference to the app's own dependency (which is that version).
  expect(new Set(Object.values(temporalOverrides(repository)))).toEqual(new Set([version]));
});
