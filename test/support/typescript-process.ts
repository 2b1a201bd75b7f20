import path from 'node:path';

const projectRoot = path.join(__dirname, '..', '..');

/**
 * How this project runs a TypeScript entry point in a process of its own, as its
 * npm scripts do: node with tsx's loader in-process (no tsx parent process, so
 * signals reach the program directly) and the `source` export condition (so
 * `durable-agent` resolves to this checkout's sources).
 */
export function typescriptArgs(script: string): string[] {
  return ['--conditions=source', '--import', require.resolve('tsx'), path.resolve(projectRoot, script)];
}
