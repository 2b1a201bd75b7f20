import type { ResolvedAgentInput } from './input';
import { readCarriedState } from './carried-state';
import { checkJsonSchema, describeSchemaProblems, type JsonSchema, type SchemaProblem } from './json-schema-check';
import { parseModelId } from './model-id';
import { promptAttachmentsProblem } from './attachments';
import { batchSessionProblem } from './batch-settings';
import { settingsGivenTwice, withSettingsFolded } from './model-settings';
import { nothingToAnswer, requiresSomethingToAnswer } from './something-to-answer';
import resolvedInputSchema from './resolved-input.schema.json';

/**
 * The workflow's own check of its input: shape only, no defaults (core/input.ts
 * says why). It runs in the workflow sandbox without zod: against the JSON Schema
 * that `npm run generate:input-schema` writes from the zod schema of core/input.ts
 * (test/unit/input-check.test.ts fails when the two differ, and checks that both
 * accept and refuse the same inputs), plus the rules JSON Schema cannot state,
 * written here as the zod schema states them. The state a previous run carried
 * over is not a caller's input: it is read by core/carried-state.ts, whole.
 */

export type ResolvedInputCheck = { ok: true; input: ResolvedAgentInput } | { ok: false; problems: string };

// JSON imports are typed by their contents; the check needs the schema's own type.
export const resolvedInputJsonSchema = resolvedInputSchema as unknown as JsonSchema;

export function checkResolvedInput(raw: unknown): ResolvedInputCheck {
  const checked = checkJsonSchema(resolvedInputJsonSchema, raw);
  const problems = checked.problems;
  if (problems.some((problem) => problem.path.length === 0)) return { ok: false, problems: describeSchemaProblems(problems) };
  const input = checked.value as ResolvedAgentInput;
  const flagged = new Set(problems.map((problem) => problem.path[0]));
  const problem = (field: string, message: string) => problems.push({ path: [field], message });
  // The zod schema trims the prompt (`z.string().trim().min(1)`) before it counts it.
  if (typeof input.prompt === 'string' && !flagged.has('prompt')) {
    input.prompt = input.prompt.trim();
    if (!input.prompt) problem('prompt', 'prompt must not be empty');
  }
  if (typeof input.model === 'string' && !flagged.has('model')) {
    try {
      parseModelId(input.model);
    } catch (error) {
      problem('model', (error as Error).message);
    }
  }
  // What the previous run carried is the run's own, not a caller's: read by its version, never by a list of fields.
  if (input.carried !== undefined) {
    const read = readCarriedState(input.carried);
    if (read.ok) input.carried = read.state;
    else problem('carried', read.problem);
  }
  if (problems.length > 0) return { ok: false, problems: describeSchemaProblems(sorted(problems)) };
  // zod's refinements, in the zod schema's order: each runs once the shape is right, and all of them report.
  const refinements: SchemaProblem[] = [
    ...(requiresSomethingToAnswer(input) ? [] : [{ path: ['prompt'], message: nothingToAnswer }]),
    ...(input.batch && input.session ? [{ path: ['batch'], message: batchSessionProblem }] : []),
    ...settingsGivenTwice(input).map(({ name, message }) => ({ path: [name], message })),
    ...[promptAttachmentsProblem(input)].filter(Boolean).map((message) => ({ path: ['attachments'], message: message! })),
  ];
  if (refinements.length > 0) return { ok: false, problems: describeSchemaProblems(refinements) };
  // Settings of the older shape (runs started before modelSettings) go into modelSettings, as zod's transform does.
  return { ok: true, input: withSettingsFolded(input) };
}

// In the order of the schema's properties, as zod reports them.
function sorted(problems: SchemaProblem[]): SchemaProblem[] {
  const order = Object.keys(resolvedInputJsonSchema.properties ?? {});
  const rank = (problem: SchemaProblem) => (problem.path.length === 0 ? -1 : order.indexOf(String(problem.path[0])));
  return problems
    .map((problem, index) => ({ problem, index }))
    .sort((a, b) => rank(a.problem) - rank(b.problem) || a.index - b.index)
    .map(({ problem }) => problem);
}
