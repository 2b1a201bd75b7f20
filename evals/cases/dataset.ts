import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { maxPromptChars } from '../../core/limits';
import { messageSchema } from '../../core/messages';
import { toolPairingProblems } from '../../core/tool-pairing';
import type { EvalCase, GraderSpec } from '../../core/eval-types';
import { expectSchema } from './expect-shorthand';
import { safeContext } from './safe-context';

/**
 * A JSONL dataset of cases (docs/evals-cases.md): one JSON object a line, blank lines skipped:
 *
 *   {"input": "What is our refund window?", "expect": {"contains": "30 days"}}
 *   {"id": "greeting", "input": {"prompt": "And in French?", "context": [{"role": "user", "content": "Say hi"},
 *     {"role": "assistant", "content": "Hi!", "toolCalls": []}]}, "expect": [{"type": "equals", "value": "Salut !"}]}
 *
 * `input` is the prompt, or the prompt with the conversation before it (messages as core/messages.ts has them, every
 * tool call with its result); `expect` is GraderSpecs or the shorthand of ./expect-shorthand.ts; `id` names the case
 * (default `<file name>:<line>`). A bad line is an error naming the file, the line and what is wrong, and no case
 * of the file is made: every bad line is listed (the first 20).
 */

const idSchema = z.string().regex(/^[\p{L}\p{N}_.:#/@+-]{1,200}$/u, 'an id is 1 to 200 letters, digits and _ . : # / @ + -');
const promptSchema = z
  .string()
  .refine((prompt) => prompt.trim().length > 0, 'the prompt is empty')
  .refine((prompt) => prompt.length <= maxPromptChars, `a prompt has at most ${maxPromptChars} characters`);
const lineSchema = z.strictObject({
  id: idSchema.optional(),
  input: z.union([
    promptSchema,
    z.strictObject({
      prompt: promptSchema,
      context: z
        .array(messageSchema)
        .superRefine((messages, context) => {
          for (const problem of toolPairingProblems(messages)) context.addIssue({ code: 'custom', message: problem });
        })
        .optional(),
    }),
  ]),
  expect: expectSchema.optional(),
});

const maxListedProblems = 20;

/** The cases of a JSONL dataset file; throws, naming every bad line, when any is. */
export async function casesFromDataset(file: string): Promise<EvalCase[]> {
  const text = await readFile(file, 'utf8').catch((error: Error) => {
    throw new Error(`cannot read the dataset ${file}: ${error.message}`, { cause: error });
  });
  return parseDataset(text, file);
}

/** The cases of a dataset's text (`file` names it in ids and errors). */
export function parseDataset(text: string, file: string): EvalCase[] {
  const cases: EvalCase[] = [];
  const problems: string[] = [];
  const lineOf = new Map<string, number>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (!raw.trim()) return;
    const problem = (what: string) => problems.push(`${file}:${line}: ${what}`);
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      return problem(`not JSON (${(error as Error).message})`);
    }
    const parsed = lineSchema.safeParse(json);
    if (!parsed.success) return problem(describe(parsed.error));
    const { id = `${path.basename(file)}:${line}`, input, expect } = parsed.data;
    if (lineOf.has(id)) return problem(`the id "${id}" is also the id of line ${lineOf.get(id)}`);
    const badRegex = regexProblem(expect ?? []);
    if (badRegex) return problem(badRegex);
    lineOf.set(id, line);
    const { prompt, context = [] } = typeof input === 'string' ? { prompt: input } : input;
    cases.push({
      id,
      source: { kind: 'dataset', file, line },
      context: safeContext(context),
      prompt,
      toolFixtures: [],
      ...(expect && expect.length > 0 && { graders: expect }),
    });
  });
  if (problems.length > 0) {
    const more = problems.length > maxListedProblems ? `\n(and ${problems.length - maxListedProblems} more)` : '';
    throw new Error(
      `the dataset has ${problems.length} bad line(s); no case is made:\n${problems.slice(0, maxListedProblems).join('\n')}${more}`,
    );
  }
  if (cases.length === 0) throw new Error(`the dataset ${file} holds no case`);
  return cases;
}

function regexProblem(graders: GraderSpec[]): string | undefined {
  for (const grader of graders) {
    if (grader.type !== 'regex') continue;
    try {
      new RegExp(grader.pattern, grader.flags);
    } catch (error) {
      return `expect: the regex ${JSON.stringify(grader.pattern)} is not one (${(error as Error).message})`;
    }
  }
  return undefined;
}

/** Zod's issues as a line of text: the field's path and what is wrong with it (a union's closest branch). */
function describe(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => {
      const branch = issue.code === 'invalid_union' ? closestBranch(issue.errors) : undefined;
      const where = [...issue.path, ...(branch?.path ?? [])].join('.');
      return `${where || 'the line'}: ${branch?.message ?? issue.message}`;
    })
    .join('; ');
}

/** Of a union's failed branches, the one that got furthest (the deepest issue path): the branch the line meant. */
function closestBranch(branches: z.core.$ZodIssue[][]): { path: PropertyKey[]; message: string } | undefined {
  const issues = branches.flat();
  const deepest = issues.sort((a, b) => b.path.length - a.path.length)[0];
  return deepest && { path: deepest.path, message: deepest.message };
}
