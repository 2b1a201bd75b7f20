import type { Tool } from './define-tool';
import { listDirectory } from './list-directory';
import { readFile } from './read-file';
import { searchFiles } from './search-files';
import { writeFile } from './write-file';

export { defineTool, toolJsonSchema } from './define-tool';
export type { Tool, ToolContext } from './define-tool';

/**
 * The tools a worker offers. To add a tool, define it with defineTool in a file
 * of its own and list it here: the worker registers it as an activity and the
 * model activity derives its JSON Schema. The workflow needs no change.
 */
export const builtInTools: Tool[] = [readFile, writeFile, listDirectory, searchFiles];
