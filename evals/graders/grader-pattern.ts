import { RE2JS } from 're2js';

/**
 * A regular expression a dataset or a user gave a grader, matched without ever blocking the thread for long.
 *
 * Graders run in workflow code and in the gradeOutcome activity, on the worker's one event loop, and the pattern is
 * foreign input. JavaScript's RegExp backtracks (`(a+)+$` on 40 characters takes minutes), so patterns run on RE2's
 * linear-time engine (re2js), as search_files does. Linear is not cheap: re2js costs about the answer's length times
 * the compiled program's size, and its compile time grows with that size too (tools/line-matcher.ts measured over a
 * second for `.{0,1000}.{0,1000}.{0,1000}.{0,1000}c$` on one 4 KB line). A grader cannot hand the work to a thread
 * (no Node built-ins in workflow code), so it bounds the work instead, deterministically:
 * - the program's size is estimated from the pattern's text before compiling (an over-estimate: counted repeats
 *   multiply what they repeat), and a pattern over `maxProgramSize` is refused when the specs are checked;
 * - one grade may spend `maxMatchSteps` (characters matched times program size) in all, whatever number of strings
 *   it matches (a schema's `pattern` on every item of a long array): a match beyond that is not attempted, and the
 *   grade fails and says why, the same way on every replay.
 * Measured here (re2js 2.10, one core): about 12–50 ns per character per instruction, so the worst match is about
 * 0.1 s and the largest compile about 30 ms.
 */
export const graderPatternLimits = {
  maxPatternChars: 1000,
  maxProgramSize: 2000,
  maxMatchSteps: 2_000_000,
  maxSchemaVisits: 50_000,
};

/** The flags a regex grader takes, as in JavaScript: i (case), m (^ and $ at lines), s (. matches a newline). */
const flagBits: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL };

export interface GraderPattern {
  /** Whether the text matches somewhere; undefined when the budget cannot pay for matching this text. */
  test(text: string, budget: MatchBudget): boolean | undefined;
}

/**
 * The work one grade may do: matching, in characters times program size (see graderPatternLimits), and the
 * (schema, value) pairs an output-schema check visits, which nested anyOf/oneOf of a hostile schema could multiply.
 */
export class MatchBudget {
  private remaining = graderPatternLimits.maxMatchSteps;
  private visits = graderPatternLimits.maxSchemaVisits;

  /** Counts one visit; false once the grade has made too many. */
  visit(): boolean {
    return --this.visits >= 0;
  }

  /** Takes the cost of a match from the budget, if it has enough left. */
  spend(steps: number): boolean {
    if (steps > this.remaining) return false;
    this.remaining -= steps;
    return true;
  }
}

// Compiled patterns by flags and text: a schema's pattern is used for every item it checks, and compiling costs.
const compiledPatterns = new Map<string, GraderPattern | { problem: string }>();
const maxCachedPatterns = 200;

/** Compiles a grader's pattern, or says in words why it cannot be used. */
export function compileGraderPattern(pattern: string, flags = ''): GraderPattern | { problem: string } {
  const key = `${flags}/${pattern}`;
  let compiled = compiledPatterns.get(key);
  if (!compiled) {
    compiled = compileUncached(pattern, flags);
    if (compiledPatterns.size >= maxCachedPatterns) compiledPatterns.clear();
    compiledPatterns.set(key, compiled);
  }
  return compiled;
}

function compileUncached(pattern: string, flags: string): GraderPattern | { problem: string } {
  if (typeof pattern !== 'string' || pattern.length === 0) return { problem: 'the pattern must be a non-empty string' };
  if (pattern.length > graderPatternLimits.maxPatternChars)
    return { problem: `the pattern is over ${graderPatternLimits.maxPatternChars} characters` };
  let bits = 0;
  for (const flag of flags) {
    if (!(flag in flagBits)) return { problem: `unknown flag "${flag}" (a regex grader takes i, m and s)` };
    bits |= flagBits[flag];
  }
  const estimate = estimateProgramSize(pattern);
  if (estimate > graderPatternLimits.maxProgramSize) return tooComplex(estimate);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, bits);
  } catch (error) {
    return {
      problem: `invalid regular expression (RE2 syntax): ${((error as Error).message ?? String(error)).replace(/^error parsing regexp: /, '')}`,
    };
  }
  const programSize = Math.max(1, compiled.re2Input.prog.numInst());
  if (programSize > graderPatternLimits.maxProgramSize) return tooComplex(programSize);
  return { test: (text, budget) => (budget.spend(text.length * programSize) ? compiled.test(text) : undefined) };
}

function tooComplex(size: number): { problem: string } {
  return {
    problem: `the pattern is too complex for a grader (about ${size} steps per character, at most ${graderPatternLimits.maxProgramSize}): use smaller repeat counts`,
  };
}

/**
 * An upper bound of the instructions RE2 compiles the pattern into, read from its text without compiling it: each
 * character, escape or class is 2, a group is what it holds plus 2, `*`, `+` and `?` add 2, and `{m,n}` repeats its
 * atom max(m, n) + 1 times (RE2 unrolls counted repeats). Nested repeats multiply. Errs high, never low: the tests
 * compile a range of patterns and compare.
 */
export function estimateProgramSize(pattern: string): number {
  const groups: number[][] = [[]]; // per open group, the sizes of its atoms so far
  let index = 0;
  const atoms = () => groups[groups.length - 1];
  const repeatLast = (times: number, extra: number) => {
    const list = atoms();
    if (list.length > 0) list[list.length - 1] = list[list.length - 1] * times + extra;
  };
  while (index < pattern.length) {
    const char = pattern[index];
    if (char === '\\') {
      const next = pattern[index + 1] ?? '';
      index += 2;
      // \p{Greek}, \x{263a}: the braces belong to the escape.
      if ('pPx'.includes(next) && pattern[index] === '{') index = closing(pattern, index, '}');
      else if ('pP'.includes(next)) index += 1;
      atoms().push(2);
    } else if (char === '[') {
      index = classEnd(pattern, index);
      atoms().push(2);
    } else if (char === '(') {
      groups.push([]);
      index += 1;
    } else if (char === ')') {
      const inner = groups.length > 1 ? groups.pop()! : [];
      atoms().push(sum(inner) + 2);
      index += 1;
    } else if (char === '*' || char === '+' || char === '?') {
      repeatLast(1, 2);
      index += 1;
    } else if (char === '{' && /^\{(\d+)(,(\d*))?\}/.test(pattern.slice(index, index + 12))) {
      const [whole, low, , high] = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(index, index + 12))!;
      repeatLast(Math.max(Number(low), Number(high || 0)) + 1, 2);
      index += whole.length;
    } else {
      atoms().push(2); // a literal, `.`, `|`, `^`, `$`, or `{` that opens no repeat
      index += 1;
    }
  }
  while (groups.length > 1) {
    const inner = groups.pop()!;
    atoms().push(sum(inner) + 2);
  }
  return sum(groups[0]) + 4;
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function closing(pattern: string, from: number, char: string): number {
  const at = pattern.indexOf(char, from);
  return at === -1 ? pattern.length : at + 1;
}

/** The index after a character class that starts at `from` (`[]a]` and `[^]a]` hold a literal `]`; `[:alpha:]` nests). */
function classEnd(pattern: string, from: number): number {
  let index = from + 1;
  if (pattern[index] === '^') index += 1;
  if (pattern[index] === ']') index += 1;
  while (index < pattern.length) {
    if (pattern[index] === '\\') index += 2;
    else if (pattern.startsWith('[:', index)) index = closing(pattern, index + 2, ']');
    else if (pattern[index] === ']') return index + 1;
    else index += 1;
  }
  return index;
}
