import { z } from 'zod';
import { ConfigurationError } from '../core/errors';

// Zod types with no JSON form. With `unrepresentable: 'any'` zod writes `{}` for them, so the model is told "anything"
// and every argument it sends then fails the parse (a JSON value is never a Date, a bigint or a Map).
const noJsonForm: Record<string, string> = {
  date: 'a Date, which JSON cannot carry: use z.iso.datetime() (a string) and convert it in the handler',
  bigint: 'a bigint, which JSON cannot carry: use z.number().int() or a string of digits',
  map: 'a Map, which JSON cannot carry: use z.record()',
  set: 'a Set, which JSON cannot carry: use z.array()',
  symbol: 'a symbol, which JSON cannot carry',
  undefined: 'undefined, which JSON cannot carry: use .optional() on the field',
  void: 'void, which JSON cannot carry: use .optional() on the field',
  function: 'a function, which JSON cannot carry',
  promise: 'a promise, which JSON cannot carry',
  nan: 'NaN, which JSON cannot carry',
  custom: 'a custom check (z.custom, z.instanceof), which has no JSON Schema the model can be shown',
};

/**
 * The JSON Schema the model is offered for a tool's arguments, or a ConfigurationError naming the tool and the
 * field when the input cannot be one: OpenAI's `parameters` and Anthropic's `input_schema` must be a JSON Schema of
 * type object, and every field must be something a JSON argument can satisfy. Checked when a tool is defined and
 * when a registry takes it, so the mistake fails at start-up rather than in the model activity of a run.
 */
export function toolInputJsonSchema(toolName: string, input: unknown): Record<string, unknown> {
  const problem = (text: string) => new ConfigurationError(`tool "${toolName}": ${text}`);
  if (!isZod4Schema(input)) {
    const shape = input !== null && typeof input === 'object' ? 'a plain object' : typeof input;
    const legacy = input !== null && typeof input === 'object' && '_def' in input ? ' (this looks like zod 3)' : '';
    throw problem(`input must be a zod 4 object schema, z.object({ ... }), not ${shape}${legacy}: wrap its fields in z.object()`);
  }
  const unrepresentable: string[] = [];
  let schema: Record<string, unknown>;
  try {
    const { $schema: _ignored, ...written } = z.toJSONSchema(input, {
      io: 'input',
      unrepresentable: 'any',
      override: (context) => {
        const kind = (context.zodSchema as { _zod: { def: { type: string } } })._zod.def.type;
        if (kind in noJsonForm) unrepresentable.push(`field "${fieldName(context.path)}" is ${noJsonForm[kind]}`);
      },
    });
    schema = written;
  } catch (error) {
    throw problem(`input has no JSON Schema form (${(error as Error).message})`);
  }
  if (schema.type !== 'object') {
    const written = typeof schema.type === 'string' ? `a ${schema.type}` : 'not an object (a union, or any value)';
    throw problem(
      `input must be z.object({ ... }): a model sends a tool's arguments as one JSON object, and this schema is ${written}`,
    );
  }
  if (unrepresentable.length > 0) throw problem(unrepresentable.sort().join('; '));
  return schema;
}

function isZod4Schema(value: unknown): value is z.ZodType {
  return value !== null && typeof value === 'object' && '_zod' in value;
}

/** `properties.when` → `when`, `properties.list.items` → `list[]`, `properties.a.anyOf.0.properties.b` → `a.b`. */
function fieldName(path: Array<string | number>): string {
  let name = '';
  for (let index = 0; index < path.length; index += 1) {
    const step = path[index];
    if (step === 'properties' || step === 'additionalProperties' || step === 'patternProperties') {
      const key = path[index + 1];
      if (step === 'properties' && key !== undefined) {
        name += name ? `.${key}` : String(key);
        index += 1;
      } else name += '[key]';
    } else if (step === 'items' || step === 'prefixItems') name += '[]';
  }
  return name || '(the input itself)';
}
