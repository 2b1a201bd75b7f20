import { ConfigurationError } from '../core/errors';
import type { CaseOutcome, EvalCase } from '../core/eval-types';

/** What a grader of your own gets: the case, how one candidate answered it, and the spec's options. */
export interface GraderInput {
  evalCase: EvalCase;
  outcome: CaseOutcome;
  options: Record<string, unknown>;
}

/** A grader's verdict: a score from 0 to 1, whether it passes (default: score 0.5 or more), and why. */
export interface GraderVerdict {
  score: number;
  pass?: boolean;
  reason: string;
}

/** A grader function of your own, registered on the worker like a tool, and named by `{ type: 'custom', name }` specs. */
export interface Grader {
  readonly kind: 'grader';
  name: string;
  description: string;
  grade(input: GraderInput): GraderVerdict | Promise<GraderVerdict>;
}

export interface GraderDefinition {
  name: string;
  description?: string;
  grade: (input: GraderInput) => GraderVerdict | Promise<GraderVerdict>;
}

// A custom grader's name is its label in reports and in dataset lines: words, dots, colons and dashes.
const graderNamePattern = /^[a-zA-Z0-9_.:-]{1,64}$/;

/** Defines a grader of your own; export it in a definitions file's `graders`, or give it to the worker's registry. */
export function defineGrader(definition: GraderDefinition): Grader {
  if (!graderNamePattern.test(definition.name))
    throw new ConfigurationError(`grader name "${definition.name}" must match ${graderNamePattern}`);
  if (typeof definition.grade !== 'function')
    throw new ConfigurationError(`grader "${definition.name}": grade must be a function`);
  return {
    kind: 'grader',
    name: definition.name,
    description: definition.description ?? '',
    grade: definition.grade,
  };
}

export function isGrader(value: unknown): value is Grader {
  return typeof value === 'object' && value !== null && (value as Grader).kind === 'grader';
}
