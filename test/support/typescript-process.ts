import path from 'node:path';

const projectRoot = path.join(__dirname, '..', '..');

/**
 * How the tests run a TypeScript entry point in a process of its own: node with ./register-typescript.js (the
 * transform jest uses, in-process: no loader parent process, so signals reach the program directly) and the
 * `source` export condition (so `durable-agent` resolves to this checkout's sources, as under `npm run agent`).
 */
export function typescriptArgs(script: string): string[] {
  return ['--conditions=source', '--require', path.join(__dirname, 'register-typescript.js'), path.resolve(projectRoot, script)];
}
