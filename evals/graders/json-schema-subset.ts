import { hasJsonType } from '../../core/json-schema-check';
import { isRecord } from '../../core/is-record';
import { compileGraderPattern, MatchBudget } from './grader-pattern';

/**
 * The JSON Schema an output-schema grader checks an answer against, with the standard's meaning (an object may have
 * other properties unless `additionalProperties: false`; `oneOf` means exactly one branch). core/json-schema-check.ts
 * checks our own zod-made schemas with zod's meaning (unknown properties stripped, first branch wins) and JavaScript's
 * backtracking RegExp for `pattern`; a dataset's schema is foreign input and its `pattern` runs on the grader's
 * bounded RE2 (./grader-pattern.ts) instead. A schema with a keyword outside this list is refused when the specs are
 * checked, so nothing is ever checked in part.
 */
const validationKeywords = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
]);
const annotations = new Set(['$schema', '$id', 'title', 'description', 'default', 'examples', '$comment']);
const types = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
const maxSchemaDepth = 32;
/** A schema's own size is bounded too: checking a value costs up to its nodes times the value's. */
const maxSchemaNodes = 2000;

type Schema = Record<string, unknown>;

/** Every reason the schema cannot be used, with where in it (`#/properties/name`); empty when it can. */
export function schemaProblems(schema: unknown): string[] {
  const nodes = { count: 0 };
  const problems = problemsAt(schema, '#', 0, nodes);
  return nodes.count > maxSchemaNodes ? [`#: the schema is over ${maxSchemaNodes} subschemas`] : problems;
}

function problemsAt(schema: unknown, at: string, depth: number, nodes: { count: number }): string[] {
  if (++nodes.count > maxSchemaNodes) return [];
  if (typeof schema === 'boolean') return [];
  if (!isRecord(schema)) return [`${at}: a schema must be an object`];
  if (depth > maxSchemaDepth) return [`${at}: nested over ${maxSchemaDepth} levels`];
  const problems: string[] = [];
  const sub = (value: unknown, where: string) => problems.push(...problemsAt(value, where, depth + 1, nodes));
  for (const [key, value] of Object.entries(schema)) {
    if (annotations.has(key)) continue;
    if (!validationKeywords.has(key)) {
      problems.push(`${at}: keyword "${key}" is not supported by the output-schema grader`);
      continue;
    }
    if (key === 'type') {
      const listed = Array.isArray(value) ? value : [value];
      if (listed.length === 0 || listed.some((name) => typeof name !== 'string' || !types.has(name)))
        problems.push(`${at}/type: must be one of ${[...types].join(', ')}, or a list of them`);
    } else if (key === 'properties') {
      if (!isRecord(value)) problems.push(`${at}/properties: must be an object of schemas`);
      else for (const [name, property] of Object.entries(value)) sub(property, `${at}/properties/${name}`);
    } else if (key === 'required') {
      if (!Array.isArray(value) || value.some((name) => typeof name !== 'string'))
        problems.push(`${at}/required: must be a list of property names`);
    } else if (key === 'additionalProperties' || key === 'items' || key === 'not') {
      sub(value, `${at}/${key}`);
    } else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf') {
      if (!Array.isArray(value) || value.length === 0) problems.push(`${at}/${key}: must be a non-empty list of schemas`);
      else value.forEach((branch, index) => sub(branch, `${at}/${key}/${index}`));
    } else if (key === 'enum') {
      if (!Array.isArray(value)) problems.push(`${at}/enum: must be a list`);
    } else if (key === 'pattern') {
      const compiled = typeof value === 'string' ? compileGraderPattern(value) : { problem: 'must be a string' };
      if ('problem' in compiled) problems.push(`${at}/pattern: ${compiled.problem}`);
    } else if (key !== 'const' && (typeof value !== 'number' || !Number.isFinite(value))) {
      problems.push(`${at}/${key}: must be a number`);
    }
  }
  return problems;
}

/**
 * Every way the value breaks the schema (`output.items.0: expected number, got string`); empty when it fits. The
 * schema must have passed schemaProblems. `budget` bounds the matching of every `pattern` in the check together.
 */
export function schemaViolations(schema: unknown, value: unknown, budget = new MatchBudget(), path = 'output'): string[] {
  if (schema === true) return [];
  if (schema === false) return [`${path}: not allowed`];
  if (!budget.visit()) return [`${path}: the schema is too costly to check against this output`];
  const rules = schema as Schema;
  const problems: string[] = [];
  const problem = (message: string) => problems.push(`${path}: ${message}`);
  if (rules.type !== undefined) {
    const allowed = (Array.isArray(rules.type) ? rules.type : [rules.type]) as string[];
    if (!allowed.some((type) => hasJsonType(type, value))) {
      problem(`expected ${allowed.join(' or ')}, got ${describeType(value)}`);
      return problems;
    }
  }
  if ('const' in rules && !deepEqual(value, rules.const)) problem(`must be ${JSON.stringify(rules.const)}`);
  if (Array.isArray(rules.enum) && !rules.enum.some((option) => deepEqual(value, option)))
    problem(`must be one of ${rules.enum.map((option) => JSON.stringify(option)).join(', ')}`);
  if (typeof value === 'number') {
    const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = rules as Record<string, number | undefined>;
    if (minimum !== undefined && value < minimum) problem(`must be at least ${minimum}`);
    if (maximum !== undefined && value > maximum) problem(`must be at most ${maximum}`);
    if (exclusiveMinimum !== undefined && value <= exclusiveMinimum) problem(`must be more than ${exclusiveMinimum}`);
    if (exclusiveMaximum !== undefined && value >= exclusiveMaximum) problem(`must be less than ${exclusiveMaximum}`);
  }
  if (typeof value === 'string') {
    const { minLength, maxLength } = rules as Record<string, number | undefined>;
    const length = [...value].length;
    if (minLength !== undefined && length < minLength) problem(`must be at least ${minLength} characters`);
    if (maxLength !== undefined && length > maxLength) problem(`must be at most ${maxLength} characters`);
    if (typeof rules.pattern === 'string') {
      const compiled = compileGraderPattern(rules.pattern);
      const matched = 'problem' in compiled ? false : compiled.test(value, budget);
      if (matched === undefined) problem(`too long to match against ${rules.pattern}`);
      else if (!matched) problem(`must match ${rules.pattern}`);
    }
  }
  if (Array.isArray(value)) {
    const { minItems, maxItems } = rules as Record<string, number | undefined>;
    if (minItems !== undefined && value.length < minItems) problem(`must have at least ${minItems} items`);
    if (maxItems !== undefined && value.length > maxItems) problem(`must have at most ${maxItems} items`);
    if (rules.items !== undefined)
      value.forEach((item, index) => problems.push(...schemaViolations(rules.items, item, budget, `${path}.${index}`)));
  }
  if (isRecord(value)) problems.push(...objectViolations(rules, value, budget, path));
  problems.push(...combinationViolations(rules, value, budget, path));
  return problems;
}

function objectViolations(rules: Schema, value: Record<string, unknown>, budget: MatchBudget, path: string): string[] {
  const problems: string[] = [];
  const properties = (isRecord(rules.properties) ? rules.properties : {}) as Record<string, unknown>;
  for (const name of (rules.required as string[] | undefined) ?? [])
    if (!Object.hasOwn(value, name)) problems.push(`${path}.${name}: required`);
  for (const [name, entry] of Object.entries(value)) {
    if (Object.hasOwn(properties, name)) problems.push(...schemaViolations(properties[name], entry, budget, `${path}.${name}`));
    else if (rules.additionalProperties !== undefined)
      problems.push(...schemaViolations(rules.additionalProperties, entry, budget, `${path}.${name}`));
  }
  return problems;
}

function combinationViolations(rules: Schema, value: unknown, budget: MatchBudget, path: string): string[] {
  const problems: string[] = [];
  for (const branch of (rules.allOf as unknown[] | undefined) ?? [])
    problems.push(...schemaViolations(branch, value, budget, path));
  const fitting = (branches: unknown[]) =>
    branches.filter((branch) => schemaViolations(branch, value, budget, path).length === 0).length;
  if (Array.isArray(rules.anyOf) && fitting(rules.anyOf) === 0)
    problems.push(`${path}: matches none of the ${rules.anyOf.length} allowed shapes (anyOf)`);
  if (Array.isArray(rules.oneOf)) {
    const count = fitting(rules.oneOf);
    if (count !== 1) problems.push(`${path}: matches ${count} of the oneOf shapes, not exactly one`);
  }
  if (rules.not !== undefined && schemaViolations(rules.not, value, budget, path).length === 0)
    problems.push(`${path}: must not match the "not" schema`);
  return problems;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => deepEqual(item, b[index]));
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
  }
  return false;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
