import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import path from 'node:path';

// The finders of the binaries this project builds with Go and caches (the Temporal CLI, MinIO, the OpenTelemetry
// Collector) look for them and build them the same way: these are the pieces they share.

/**
 * Runs a build command to its end. Its output goes to stderr: the install scripts print the binary's path on
 * stdout, and a script reading it must get nothing else.
 */
export function runCommand(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  output: 'show' | 'hide' = 'show',
): Promise<void> {
  return new Promise((resolve, reject) => {
    const shown = output === 'show' ? process.stderr : 'ignore';
    const child = spawn(command, args, { env, stdio: ['ignore', shown, shown] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))));
  });
}

/** Whether `go` can be run here (to build what is not found). */
export function hasGo(): Promise<boolean> {
  return runCommand('go', ['version'], process.env, 'hide').then(
    () => true,
    () => false,
  );
}

export function isExecutable(file: string): Promise<boolean> {
  return access(file, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** Where one finder looks for its binary. */
export interface ExecutableSearch {
  /** The variable that names the binary's path outright (TEMPORAL_CLI_PATH). */
  variable: string;
  /** The binary's name, to look for in each PATH directory; absent, PATH is not searched. */
  nameOnPath?: string;
  /** The cached build's path (asked only when it comes to that: computing it may read a file). */
  cached: () => string;
}

/**
 * Looks for a binary the way every finder does: the path the variable names, then PATH, then the cache. A variable
 * naming no executable is an error, not a reason to look elsewhere: the user asked for that binary.
 */
export async function findExecutable(env: NodeJS.ProcessEnv, search: ExecutableSearch): Promise<string | undefined> {
  const given = env[search.variable];
  if (given) {
    if (await isExecutable(given)) return given;
    throw new Error(`${search.variable}=${given} is not an executable file`);
  }
  if (search.nameOnPath) {
    for (const directory of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
      const candidate = path.join(directory, search.nameOnPath);
      if (await isExecutable(candidate)) return candidate;
    }
  }
  const cached = search.cached();
  return (await isExecutable(cached)) ? cached : undefined;
}
