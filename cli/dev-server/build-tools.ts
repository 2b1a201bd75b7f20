import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';

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
