import { isRecord } from './is-record';

/**
 * A check of a value against the part of JSON Schema (draft 2020-12) that zod's
 * `toJSONSchema` writes for our own schemas, with zod's parse semantics: an
 * object keeps only the properties its schema names (zod strips the rest), and
 * the first branch of a `oneOf`/`anyOf` that fits wins. It exists so the
 * workflow can check its input without zod in the workflow bundle (zod is over
 * half of it, evaluated again for every workflow a worker starts: bench/NOTES.md).
 * It knows only the keywords listed below; `assertUnderstood` refuses a schema
 * with any other, so a schema change that needs more fails its test
 * (test/unit/input-check.test.ts) instead of being checked in part.
 */

export interface JsonSchema {
  $schema?: string;
  type?: 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  const?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
}

export interface SchemaProblem {
  path: Array<string | number>;
  message: string;
}

const understood = new Set<string>([
  '$schema',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'items',
  'const',
  'enum',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'minLength',
  'maxLength',
  'pattern',
  'oneOf',
  'anyOf',
]);

/** The value as the schema keeps it (unknown properties left out), and every way it breaks the schema. */
export function checkJsonSchema(schema: JsonSchema, value: unknown): { value: unknown; problems: SchemaProblem[] } {
  const problems: SchemaProblem[] = [];
  const kept = check(schema, value, [], problems);
  return { value: kept, problems };
}

/** `messages.0.role: must be "user"`; a problem of the whole value has no path. */
export function describeSchemaProblems(problems: SchemaProblem[]): string {
  return problems.map(({ path, message }) => (path.length ? `${path.join('.')}: ${message}` : message)).join('; ');
}

/** Throws on a keyword this check does not implement, anywhere in the schema. */
export function assertUnderstood(schema: JsonSchema, at = '#'): void {
  for (const key of Object.keys(schema)) {
    if (!understood.has(key))
      throw new Error(`${at}: JSON Schema keyword "${key}" is not implemented by core/json-schema-check.ts`);
  }
  for (const [name, property] of Object.entries(schema.properties ?? {})) assertUnderstood(property, `${at}/properties/${name}`);
  for (const [key, sub] of [
    ['additionalProperties', schema.additionalProperties],
    ['propertyNames', schema.propertyNames],
    ['items', schema.items],
  ] as const) {
    if (sub) assertUnderstood(sub, `${at}/${key}`);
  }
  for (const key of ['oneOf', 'anyOf'] as const)
    schema[key]?.forEach((branch, index) => assertUnderstood(branch, `${at}/${key}/${index}`));
}

function check(schema: JsonSchema, value: unknown, path: Array<string | number>, problems: SchemaProblem[]): unknown {
  const branches = schema.oneOf ?? schema.anyOf;
  if (branches) return checkBranches(branches, value, path, problems);
  const problem = (message: string) => problems.push({ path, message });

  if (schema.type && !hasJsonType(schema.type, value)) {
    problem(`expected ${schema.type}, got ${describeType(value)}`);
    return value;
  }
  if ('const' in schema && value !== schema.const) problem(`must be ${JSON.stringify(schema.const)}`);
  if (schema.enum && !schema.enum.includes(value))
    problem(`must be one of ${schema.enum.map((option) => JSON.stringify(option)).join(', ')}`);
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) problem(`must be at least ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) problem(`must be at most ${schema.maximum}`);
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum)
      problem(`must be more than ${schema.exclusiveMinimum}`);
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength)
      problem(schema.minLength === 1 ? 'must not be empty' : `must be at least ${schema.minLength} characters`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      problem(`must be at most ${schema.maxLength} characters`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) problem(`must match ${schema.pattern}`);
  }
  if (Array.isArray(value) && schema.items) {
    const items = schema.items;
    return value.map((item, index) => check(items, item, [...path, index], problems));
  }
  if (isRecord(value) && (schema.properties || schema.additionalProperties || schema.propertyNames))
    return checkObject(schema, value, path, problems);
  return value;
}

function checkObject(
  schema: JsonSchema,
  value: Record<string, unknown>,
  path: Array<string | number>,
  problems: SchemaProblem[],
): unknown {
  const kept: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (value[name] === undefined) {
      if (required.has(name)) problems.push({ path: [...path, name], message: 'required' });
      continue;
    }
    kept[name] = check(property, value[name], [...path, name], problems);
  }
  // A record (`z.record`): every other key is kept, and checked.
  if (schema.additionalProperties || schema.propertyNames) {
    for (const [name, entry] of Object.entries(value)) {
      if (schema.properties && name in schema.properties) continue;
      if (schema.propertyNames) check(schema.propertyNames, name, [...path, name], problems);
      kept[name] = schema.additionalProperties ? check(schema.additionalProperties, entry, [...path, name], problems) : entry;
    }
  }
  return kept;
}

/**
 * The first branch the value fits. When none fits, the problems reported are those of
 * the branch whose constant properties (a discriminator such as `role`) the value matches,
 * or else one problem naming the mismatch: the most useful words for a tagged union.
 */
function checkBranches(branches: JsonSchema[], value: unknown, path: Array<string | number>, problems: SchemaProblem[]): unknown {
  let tagged: SchemaProblem[] | undefined;
  for (const branch of branches) {
    const attempt: SchemaProblem[] = [];
    const kept = check(branch, value, path, attempt);
    if (attempt.length === 0) return kept;
    if (!tagged && matchesConstants(branch, value)) tagged = attempt;
  }
  if (tagged) problems.push(...tagged);
  else problems.push({ path, message: `matches none of the ${branches.length} allowed shapes` });
  return value;
}

function matchesConstants(branch: JsonSchema, value: unknown): boolean {
  const constants = Object.entries(branch.properties ?? {}).filter(([, property]) => 'const' in property);
  return isRecord(value) && constants.length > 0 && constants.every(([name, property]) => value[name] === property.const);
}

/** Whether `value` has the JSON Schema type `type` (a number is finite; an unknown type name matches nothing). */
export function hasJsonType(type: string, value: unknown): boolean {
  switch (type) {
    case 'object':
      return isRecord(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    default:
      return false;
  }
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isInteger(value)) return `number ${value}`;
  return typeof value;
}
