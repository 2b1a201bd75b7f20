import { execFileSync, spawn, type SpawnOptions } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runCommand } from '../cli/dev-server/build-tools';
import { freePort } from '../cli/dev-server/free-port';
import { ServerProcess } from '../cli/dev-server/server-process';
import { runToEnd } from './run-to-end';

export interface Postgres {
  host: string;
  port: number;
  /** The version of the PostgreSQL that runs ("15.14"): the machine's, not the compose file's image. */
  version: string;
  /** Where its programs are (postgresBinDirectory). */
  binaries: string;
  /** Stops the server (SIGTERM: a fast shutdown) and waits until it has exited. */
  stop(): Promise<void>;
}

export interface PostgresOptions {
  /** A directory of its own: the cluster's data in data/, its Unix socket in socket/, its log in postgres.log. */
  directory: string;
  user: string;
  password: string;
  port?: number;
}

/**
 * Starts a PostgreSQL cluster of its own, as the compose file's postgres image does: a superuser named
 * POSTGRES_USER with POSTGRES_PASSWORD, password authentication over TCP. Here it listens on loopback only, on a
 * free port, with its Unix socket in its own directory (not /var/run/postgresql, which may belong to a system
 * cluster). PostgreSQL refuses to run as root: as root, it runs as the `postgres` user that Debian's package creates.
 */
export async function startPostgres(options: PostgresOptions): Promise<Postgres> {
  const binaries = postgresBinDirectory();
  const runAs = postgresUser();
  const dataDirectory = path.join(options.directory, 'data');
  const socketDirectory = path.join(options.directory, 'socket');
  await mkdir(socketDirectory, { recursive: true });
  if (runAs) await assertReachable(options.directory);
  if (runAs) await chown(options.directory, runAs.uid, runAs.gid);
  if (runAs) await chown(socketDirectory, runAs.uid, runAs.gid);
  if (!existsSync(path.join(dataDirectory, 'PG_VERSION'))) {
    const passwordFile = path.join(options.directory, 'superuser-password');
    await writeFile(passwordFile, `${options.password}\n`, { mode: 0o600 });
    if (runAs) await chown(passwordFile, runAs.uid, runAs.gid);
    await runToEnd(
      path.join(binaries, 'initdb'),
      [
        '--pgdata',
        dataDirectory,
        '--username',
        options.user,
        '--pwfile',
        passwordFile,
        '--auth',
        'scram-sha-256',
        '--encoding',
        'UTF8',
        '--no-instructions',
      ],
      { ...spawnAs(runAs), cwd: '/' },
    );
  }
  const port = options.port ?? (await freePort());
  const child = spawn(
    path.join(binaries, 'postgres'),
    [
      '-D',
      dataDirectory,
      '-p',
      String(port),
      '-k',
      socketDirectory,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
    ],
    { ...spawnAs(runAs), stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const server = new ServerProcess(child, 'PostgreSQL', 30_000);
  const isReady = path.join(binaries, 'pg_isready');
  await server.waitUntilReady(
    () =>
      runCommand(
        isReady,
        ['--host=127.0.0.1', `--port=${port}`, `--username=${options.user}`, '--dbname=postgres'],
        process.env,
        'hide',
      ).then(
        () => true,
        () => false,
      ),
    { what: `pg_isready on 127.0.0.1:${port}`, timeoutMs: 60_000, intervalMs: 250 },
  );
  return { host: '127.0.0.1', port, version: postgresVersion(binaries), binaries, stop: () => server.stop() };
}

/**
 * PostgreSQL's programs: POSTGRES_BIN_DIR, else the newest Debian installation (/usr/lib/postgresql/N/bin, where
 * `apt-get install postgresql` puts them; only psql and pg_ctlcluster wrappers land on PATH), else PATH.
 */
export function postgresBinDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.POSTGRES_BIN_DIR) return env.POSTGRES_BIN_DIR;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirNumbers(debian).filter((version) =>
      existsSync(path.join(debian, String(version), 'bin', 'postgres')),
    );
    if (versions.length > 0) return path.join(debian, String(Math.max(...versions)), 'bin');
  }
  for (const directory of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    if (existsSync(path.join(directory, 'initdb')) && existsSync(path.join(directory, 'postgres'))) return directory;
  }
  throw new Error(
    'PostgreSQL is not installed: install it (Debian: apt-get install postgresql) or set POSTGRES_BIN_DIR to the directory of initdb and postgres',
  );
}

/** The version `postgres --version` reports ("postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)" → "15.14"). */
export function postgresVersion(binaries: string): string {
  const said = execFileSync(path.join(binaries, 'postgres'), ['--version']).toString();
  return /\(PostgreSQL\)\s+(\S+)/.exec(said)?.[1] ?? said.trim();
}

function readdirNumbers(directory: string): number[] {
  try {
    return readdirSync(directory)
      .map(Number)
      .filter((version) => Number.isInteger(version));
  } catch {
    return [];
  }
}

/** The `postgres` user must be able to reach its directory: every directory above it searchable by others. */
async function assertReachable(directory: string): Promise<void> {
  for (let parent = path.dirname(directory); ; parent = path.dirname(parent)) {
    if (((await stat(parent)).mode & 0o001) === 0)
      throw new Error(
        `PostgreSQL runs as the postgres user, who cannot enter ${parent} (chmod o+x it, or choose another directory)`,
      );
    if (parent === path.dirname(parent)) return;
  }
}

interface RunAs {
  uid: number;
  gid: number;
}

/** Whom PostgreSQL runs as when we are root (it refuses root): the `postgres` user. */
function postgresUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { uid, gid };
  } catch {
    throw new Error('running as root, PostgreSQL needs a `postgres` user to run as (Debian’s postgresql package creates it)');
  }
}

function spawnAs(runAs: RunAs | undefined): SpawnOptions {
  // HOME and the rest of root's environment stay behind: the server needs none of it.
  return runAs
    ? { uid: runAs.uid, gid: runAs.gid, env: { PATH: process.env.PATH, LANG: 'C.UTF-8' } }
    : { env: { ...process.env, LANG: 'C.UTF-8' } };
}
