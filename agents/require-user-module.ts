import path from 'node:path';
import { ConfigurationError } from '../core/errors';

/** The extensions Node cannot load without a TypeScript loader (tsx) or its own type stripping (Node ≥ 22.18). */
const typeScriptFile = /\.[cm]?tsx?$/;

/**
 * Loads a user's module by its absolute path: AGENT_DEFINITIONS, which may be TypeScript.
 *
 * The `durable-agent` command runs compiled JavaScript, so nothing has taught Node TypeScript unless the user did:
 * - a loader already registered (`npm run agent` in this repository runs under tsx) handles it;
 * - otherwise tsx, when the user's project has it installed (resolved from the module's own directory), is registered
 *   first: full TypeScript, as the project's own `tsx` runs it (relative imports without extensions, enums…);
 * - otherwise Node's own type stripping (on by default from Node 22.18 and 23.6) loads it, within its limits;
 * - and on a Node without it, the error says what to do.
 */
export function requireUserModule(file: string): Record<string, unknown> {
  if (typeScriptFile.test(file) && !typeScriptLoaderRegistered()) registerProjectTsx(file);
  try {
    return require(file) as Record<string, unknown>;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_UNKNOWN_FILE_EXTENSION' || !typeScriptLoaderAvailable(file)) {
      throw new ConfigurationError(
        `${file} is TypeScript, and Node ${process.version} cannot load it by itself: install tsx in your project ` +
          '(npm install --save-dev tsx), or use Node 22.18 or later, or compile it to JavaScript and name the .js file',
      );
    }
    throw error;
  }
}

function typeScriptLoaderRegistered(): boolean {
  // Deprecated, but the one place where CommonJS shows which extensions a loader (tsx) has taught it.
  return Boolean((require.extensions as Record<string, unknown> | undefined)?.['.ts']);
}

function registerProjectTsx(file: string): void {
  let api: string;
  try {
    api = require.resolve('tsx/cjs/api', { paths: [path.dirname(file)] });
  } catch {
    return; // no tsx in the user's project: Node's own type stripping, if this Node has it
  }
  (require(api) as { register: () => unknown }).register();
}

/** Whether anything can load `file`: it is not TypeScript, or a loader is registered, or this Node strips types. */
function typeScriptLoaderAvailable(file: string): boolean {
  return (
    !typeScriptFile.test(file) ||
    typeScriptLoaderRegistered() ||
    Boolean((process.features as { typescript?: unknown }).typescript)
  );
}
