import { execFile } from 'node:child_process';
import { cp, mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { hasGo, isExecutable, runCommand } from '../cli/dev-server/build-tools';
import { cacheDirectory } from '../cli/dev-server/find-temporal-cli';
import { readComposeFile } from './compose-file';

/**
 * What the temporalio/auto-setup and temporalio/ui images carry, built from the Go module proxy at the versions
 * docker-compose.yml pins, and cached in ~/.cache/durable-agent (minutes on two cores, once):
 * the server (go.temporal.io/server cmd/server), its SQL schema tool (cmd/tools/sql), the schema files and the
 * config template the image renders at start, and the Web UI server (github.com/temporalio/ui-server/v2) with its
 * config files.
 */
export interface TemporalServerBuild {
  version: string;
  server: string;
  sqlTool: string;
  /** schema/postgresql/v12 of the server module: temporal/versioned and visibility/versioned. */
  postgresSchemaDirectory: string;
  /** docker/config_template.yaml of the server module: what the image renders into its config. */
  configTemplate: string;
  uiVersion: string;
  uiServer: string;
  /** config/ of the ui-server module (base.yaml, docker.yaml: the image's config, read from its environment). */
  uiConfigDirectory: string;
}

const serverModule = 'go.temporal.io/server';
const uiModule = 'github.com/temporalio/ui-server/v2';

export function temporalServerBuild(env: NodeJS.ProcessEnv = process.env): TemporalServerBuild {
  const { temporalVersion, temporalUiVersion } = readComposeFile(env);
  const serverDirectory = path.join(cacheDirectory(env), 'temporal-server', `v${temporalVersion}`);
  const uiDirectory = path.join(cacheDirectory(env), 'temporal-ui-server', `v${temporalUiVersion}`);
  return {
    version: temporalVersion,
    server: path.join(serverDirectory, 'temporal-server'),
    sqlTool: path.join(serverDirectory, 'temporal-sql-tool'),
    postgresSchemaDirectory: path.join(serverDirectory, 'schema', 'postgresql', 'v12'),
    configTemplate: path.join(serverDirectory, 'config_template.yaml'),
    uiVersion: temporalUiVersion,
    uiServer: path.join(uiDirectory, 'ui-server'),
    uiConfigDirectory: path.join(uiDirectory, 'config'),
  };
}

/** The cached build, or the reason it is not there. */
export async function findTemporalServer(env: NodeJS.ProcessEnv = process.env): Promise<TemporalServerBuild | undefined> {
  const build = temporalServerBuild(env);
  const present = await Promise.all([build.server, build.sqlTool, build.uiServer].map(isExecutable));
  return present.every(Boolean) ? build : undefined;
}

/** Finds the build, or makes it: `go install` of the three commands, then the module files next to them. */
export async function ensureTemporalServer(log: (line: string) => void = () => {}): Promise<TemporalServerBuild> {
  const found = await findTemporalServer();
  if (found) return found;
  const build = temporalServerBuild();
  if (!(await hasGo())) {
    throw new Error(
      `the Temporal server ${build.version} is not built in ${path.dirname(build.server)} and Go is not available to build it: install Go`,
    );
  }
  const started = Date.now();
  const serverDirectory = path.dirname(build.server);
  log(
    `Building the Temporal server ${build.version} and temporal-sql-tool into ${serverDirectory} (once; takes several minutes)...`,
  );
  await goInstall(serverDirectory, [
    `${serverModule}/cmd/server@v${build.version}`,
    `${serverModule}/cmd/tools/sql@v${build.version}`,
  ]);
  await rename(path.join(serverDirectory, 'server'), build.server);
  await rename(path.join(serverDirectory, 'sql'), build.sqlTool);
  const serverSource = await moduleDirectory(serverModule, build.version);
  await cp(path.join(serverSource, 'schema', 'postgresql', 'v12'), build.postgresSchemaDirectory, { recursive: true });
  await cp(path.join(serverSource, 'docker', 'config_template.yaml'), build.configTemplate);

  const uiDirectory = path.dirname(build.uiServer);
  log(`Building the Temporal Web UI server ${build.uiVersion} into ${uiDirectory}...`);
  await goInstall(uiDirectory, [`${uiModule}/cmd/server@v${build.uiVersion}`]);
  await rename(path.join(uiDirectory, 'server'), build.uiServer);
  await cp(path.join(await moduleDirectory(uiModule, build.uiVersion), 'config'), build.uiConfigDirectory, { recursive: true });
  log(`Built the Temporal server and Web UI in ${Math.round((Date.now() - started) / 1000)} s`);
  return build;
}

async function goInstall(binDirectory: string, packages: string[]): Promise<void> {
  await mkdir(binDirectory, { recursive: true });
  await runCommand('go', ['install', ...packages], { ...process.env, GOBIN: binDirectory, CGO_ENABLED: '0' });
}

/** Where the module proxy's copy of a module is (downloaded already by `go install`; read-only files). */
async function moduleDirectory(module: string, version: string): Promise<string> {
  const { stdout } = await promisify(execFile)('go', ['mod', 'download', '-json', `${module}@v${version}`]);
  return (JSON.parse(stdout) as { Dir: string }).Dir;
}
