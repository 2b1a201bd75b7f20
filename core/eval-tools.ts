import type { ToolFixture, UnrecordedToolPolicy } from './eval-types';

/**
 * What an eval's run does with its tool calls (docs/evals-tools.md): a call a recording answered (same tool, same
 * canonical arguments) gets the recorded result without running anything; any other call of a built-in workspace
 * tool runs against the run's workspace, a scratch copy (`scratch`), or is refused (`refuse`); every other tool (the
 * user's own, MCP tools) is refused unless a fixture answers it. Pure code without zod: the workflow imports it.
 */

/** The evalTools of a run's input (core/input.ts holds its schema). */
export interface EvalTools {
  fixtures: ToolFixture[];
  unrecorded: UnrecordedToolPolicy;
}

/**
 * The built-in tools that act on the run's workspace and nothing else (tools/index.ts's builtInTools: a unit test
 * keeps the two lists equal). Only these may run in an eval, and only against a scratch copy: the registry refuses a
 * tool of another's making under one of these names, so a name here is always the built-in one.
 */
export const builtInWorkspaceTools: readonly string[] = ['read_file', 'write_file', 'list_directory', 'search_files'];

/**
 * JSON with object keys sorted (by UTF-16 code units, as Array.prototype.sort) and no spaces: two calls whose
 * arguments differ only in key order or whitespace have the same text. Built as text, never as an object, so a key
 * such as `__proto__` stays a key. The value is parsed JSON, whose depth the workflow already bounded
 * (core/tool-arguments.ts), so the recursion is bounded too.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}

/** The fixture that answers a call of `tool` with these parsed arguments: the first in the list, or none. */
export function fixtureFor(fixtures: ToolFixture[], tool: string, parsedArguments: unknown): ToolFixture | undefined {
  const canonical = canonicalJson(parsedArguments);
  return fixtures.find((fixture) => fixture.tool === tool && fixture.arguments === canonical);
}

/** Marks on a tool's label (stream event, status, activity summary) that say the eval answered the call itself. */
export const evalLabels = { recorded: '(recorded)', refused: '(refused by eval)' } as const;

/** The error result of a call an eval refused: the model reads why, and a report reads it was the eval. */
export function evalRefusal(tool: string, unrecorded: UnrecordedToolPolicy, workspaceTool: boolean): string {
  const why = workspaceTool
    ? 'this eval runs no tool call the recording did not answer'
    : 'in an eval only the built-in workspace tools run, against a scratch copy of the workspace';
  return `Error: not run: the eval refused this call of ${tool} (unrecorded: ${unrecorded}): ${why}.`;
}
