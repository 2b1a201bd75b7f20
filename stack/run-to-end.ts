import { spawn, type SpawnOptions } from 'node:child_process';
import path from 'node:path';

/**
 * Runs a set-up command (initdb, temporal-sql-tool, the compose file's shell commands) to its end. When it exits
 * non-zero, the error names the command and carries the end of what it printed, which is where such tools say why.
 */
export function runToEnd(program: string, args: string[], options: SpawnOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const child = spawn(program, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${path.basename(program)} ${args.join(' ')} failed (${code}): ${output.trim().slice(-2000)}`)),
    );
  });
}
