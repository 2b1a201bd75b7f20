import { ConfigurationError } from '../../core/errors';
import { parseModelId } from '../../core/model-id';
import type { GraderSpec } from '../../core/eval-types';
import { compileGraderPattern } from './grader-pattern';
import { isRecord } from '../../core/is-record';
import { schemaProblems } from './json-schema-subset';

/** What each grader type takes, and whether it is required: anything else on a spec is a mistake (a typo) and refused. */
const fields: Record<GraderSpec['type'], Record<string, 'required' | 'optional'>> = {
  equals: { value: 'required', ignoreCase: 'optional' },
  contains: { value: 'required', ignoreCase: 'optional' },
  regex: { pattern: 'required', flags: 'optional' },
  'output-schema': { schema: 'optional' },
  'tool-calls': { calls: 'optional', only: 'optional' },
  bounds: { maxCostUsd: 'optional', maxIterations: 'optional', maxToolCalls: 'optional' },
  judge: { rubric: 'required', model: 'required', passScore: 'optional' },
  custom: { name: 'required', options: 'optional' },
};

export const maxRubricChars = 20_000;

export interface GraderSpecContext {
  /** The custom graders the worker has, when known: a spec naming another is refused too. */
  customGraders?: Iterable<string>;
}

/**
 * Every reason these specs cannot be used, each naming the spec (`graders[2] (regex): invalid regular expression…`);
 * empty when all are good. Specs come from datasets and command lines, so anything may arrive: this is where a bad
 * one is caught, before a case runs (an invalid pattern here, not a crash mid-eval).
 */
export function graderSpecProblems(specs: unknown, where = 'graders', context: GraderSpecContext = {}): string[] {
  if (!Array.isArray(specs)) return [`${where}: must be a list of graders`];
  const known = context.customGraders ? new Set(context.customGraders) : undefined;
  return specs.flatMap((spec, index) => {
    const at = `${where}[${index}]`;
    if (!isRecord(spec) || typeof spec.type !== 'string' || !Object.hasOwn(fields, spec.type))
      return [`${at}: "type" must be one of ${Object.keys(fields).join(', ')}`];
    const type = spec.type as GraderSpec['type'];
    const allowed = fields[type];
    const shape = [
      ...Object.keys(spec)
        .filter((key) => key !== 'type' && !Object.hasOwn(allowed, key))
        .map((key) => `unknown field "${key}" (a ${type} grader takes ${Object.keys(allowed).join(', ')})`),
      ...Object.entries(allowed)
        .filter(([key, need]) => need === 'required' && spec[key] === undefined)
        .map(([key]) => `"${key}" is required`),
    ];
    const problems = shape.length > 0 ? shape : fieldProblems(spec as GraderSpec, known);
    return problems.map((problem) => `${at} (${type}): ${problem}`);
  });
}

/** Throws a ConfigurationError listing every problem of the specs; returns them typed when there is none. */
export function checkGraderSpecs(specs: unknown, where = 'graders', context: GraderSpecContext = {}): GraderSpec[] {
  const problems = graderSpecProblems(specs, where, context);
  if (problems.length > 0) throw new ConfigurationError(`bad grader specs: ${problems.join('; ')}`);
  return specs as GraderSpec[];
}

function fieldProblems(spec: GraderSpec, known: Set<string> | undefined): string[] {
  switch (spec.type) {
    case 'equals':
    case 'contains':
      return [
        ...(typeof spec.value === 'string' && (spec.type === 'equals' || spec.value !== '')
          ? []
          : ['"value" must be a non-empty string']),
        ...booleanProblem(spec.ignoreCase, 'ignoreCase'),
      ];
    case 'regex': {
      if (spec.flags !== undefined && typeof spec.flags !== 'string') return ['"flags" must be a string'];
      const compiled = compileGraderPattern(spec.pattern, spec.flags);
      return 'problem' in compiled ? [compiled.problem] : [];
    }
    case 'output-schema':
      return spec.schema === undefined ? [] : schemaProblems(spec.schema).map((problem) => `schema ${problem}`);
    case 'tool-calls':
      return toolCallsProblems(spec);
    case 'bounds': {
      const bounds = (['maxCostUsd', 'maxIterations', 'maxToolCalls'] as const).filter((key) => spec[key] !== undefined);
      if (bounds.length === 0) return ['give at least one of maxCostUsd, maxIterations, maxToolCalls'];
      return bounds.filter((key) => !isNonNegative(spec[key])).map((key) => `"${key}" must be a number, 0 or more`);
    }
    case 'judge':
      return judgeProblems(spec);
    case 'custom':
      if (typeof spec.name !== 'string' || !spec.name) return ['"name" must be a grader name'];
      if (spec.options !== undefined && !isRecord(spec.options)) return ['"options" must be an object'];
      if (known && !known.has(spec.name))
        return [`no grader named "${spec.name}" is registered (known: ${[...known].join(', ') || 'none'})`];
      return [];
    default: {
      const _exhaustive: never = spec;
      return [`unknown grader ${JSON.stringify(_exhaustive)}`];
    }
  }
}

function toolCallsProblems(spec: Extract<GraderSpec, { type: 'tool-calls' }>): string[] {
  const problems: string[] = [];
  if (spec.calls === undefined && spec.only === undefined) problems.push('give "calls", "only", or both');
  if (spec.calls !== undefined) {
    if (!Array.isArray(spec.calls)) problems.push('"calls" must be a list of { name, arguments? }');
    else
      spec.calls.forEach((call, index) => {
        if (!isRecord(call) || typeof call.name !== 'string' || !call.name) problems.push(`calls[${index}]: needs a tool "name"`);
        else if (Object.keys(call).some((key) => key !== 'name' && key !== 'arguments'))
          problems.push(`calls[${index}]: takes only "name" and "arguments"`);
        else if (call.arguments !== undefined && !isRecord(call.arguments))
          problems.push(`calls[${index}]: "arguments" must be an object`);
      });
  }
  if (spec.only !== undefined && (!Array.isArray(spec.only) || spec.only.some((name) => typeof name !== 'string')))
    problems.push('"only" must be a list of tool names');
  return problems;
}

function judgeProblems(spec: Extract<GraderSpec, { type: 'judge' }>): string[] {
  const problems: string[] = [];
  if (typeof spec.rubric !== 'string' || !spec.rubric.trim()) problems.push('"rubric" must be a non-empty string');
  else if (spec.rubric.length > maxRubricChars) problems.push(`"rubric" is over ${maxRubricChars} characters`);
  try {
    parseModelId(typeof spec.model === 'string' ? spec.model : '');
  } catch (error) {
    problems.push(`"model": ${(error as Error).message}`);
  }
  if (spec.passScore !== undefined && !(typeof spec.passScore === 'number' && spec.passScore >= 0 && spec.passScore <= 1))
    problems.push('"passScore" must be a number from 0 to 1');
  return problems;
}

function booleanProblem(value: unknown, name: string): string[] {
  return value === undefined || typeof value === 'boolean' ? [] : [`"${name}" must be true or false`];
}

function isNonNegative(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
