/**
 * Inputs for holding a zod-free check to its zod schema: each base input, and the base with the value
 * at every path inside it replaced by each of `replacements` (undefined included, which leaves a
 * field out) or given an unknown key, so that the comparison covers refusals as well as acceptances.
 */

export const replacements: unknown[] = [
  undefined,
  null,
  '',
  '   ',
  '  padded  ',
  'x',
  'Open AI:gpt',
  'openai:gpt',
  -1,
  0,
  1,
  1.5,
  2048,
  1e9,
  true,
  [],
  {},
  ['x'],
  { extra: 1 },
];

/** Every path to a value inside `value` (object keys and array indices), the root excluded. */
function paths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return value.flatMap((item, index) => [[...prefix, index], ...paths(item, [...prefix, index])]);
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => [[...prefix, key], ...paths(item, [...prefix, key])]);
  return [];
}

function withValueAt(value: unknown, at: Array<string | number>, replacement: unknown): unknown {
  if (at.length === 0) return replacement;
  const [head, ...rest] = at;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  copy[head] = withValueAt(copy[head], rest, replacement);
  return copy;
}

export function inputVariants(bases: Array<Record<string, unknown>>): unknown[] {
  const all: unknown[] = [undefined, null, 'a prompt', [], {}];
  for (const base of bases) {
    all.push(base, { ...base, unknownSetting: true });
    for (const at of paths(base)) {
      for (const replacement of replacements) all.push(withValueAt(base, at, replacement));
      // An unknown key inside every object: zod drops it, and so must the check.
      const inner = at.reduce<unknown>((value, key) => (value as Record<string | number, unknown>)[key], base);
      if (inner && typeof inner === 'object' && !Array.isArray(inner))
        all.push(withValueAt(base, at, { ...inner, surplus: 'dropped' }));
    }
  }
  return all;
}
