import { z } from 'zod';
import type { GraderSpec } from '../../core/eval-types';
import { graderSpecSchema } from './grader-spec-schema';

/**
 * A dataset line's `expect` (docs/evals-cases.md): GraderSpecs as core/eval-types.ts has them, one (`{"type": "contains", …}`)
 * or a list; or the shorthand, an object whose every key is one of these and becomes graders:
 * - `"contains": "refund"` or `["refund", "order"]`: the answer contains each (one `contains` grader each);
 * - `"equals": "42"`, `"regex": "^\\d+$"`: the answer equals it, or matches it;
 * - `"tools": ["read_file"]`: these tools were called; `"onlyTools": ["read_file"]`: no tool outside these;
 * - `"maxCostUsd"`, `"maxIterations"`, `"maxToolCalls"`: numbers, one `bounds` grader for all of them.
 */
const textList = z.union([z.string(), z.array(z.string()).min(1)]);
const shorthandSchema = z.strictObject({
  contains: textList.optional(),
  equals: z.string().optional(),
  regex: z.string().optional(),
  tools: z.array(z.string().min(1)).min(1).optional(),
  onlyTools: z.array(z.string().min(1)).optional(),
  maxCostUsd: z.number().min(0).optional(),
  maxIterations: z.number().int().min(0).optional(),
  maxToolCalls: z.number().int().min(0).optional(),
});
type Shorthand = z.infer<typeof shorthandSchema>;

export const expectSchema = z.union([
  z.array(graderSpecSchema),
  graderSpecSchema.transform((spec) => [spec]),
  shorthandSchema.transform(graders),
]);

/** The graders a shorthand stands for, in the order the list above gives. */
function graders(shorthand: Shorthand): GraderSpec[] {
  const specs: GraderSpec[] = [];
  const { contains, equals, regex, tools, onlyTools, maxCostUsd, maxIterations, maxToolCalls } = shorthand;
  for (const value of contains === undefined ? [] : [contains].flat()) specs.push({ type: 'contains', value });
  if (equals !== undefined) specs.push({ type: 'equals', value: equals });
  if (regex !== undefined) specs.push({ type: 'regex', pattern: regex });
  if (tools !== undefined || onlyTools !== undefined)
    specs.push({
      type: 'tool-calls',
      ...(tools && { calls: tools.map((name) => ({ name })) }),
      ...(onlyTools && { only: onlyTools }),
    });
  if (maxCostUsd !== undefined || maxIterations !== undefined || maxToolCalls !== undefined)
    specs.push({
      type: 'bounds',
      ...(maxCostUsd !== undefined && { maxCostUsd }),
      ...(maxIterations !== undefined && { maxIterations }),
      ...(maxToolCalls !== undefined && { maxToolCalls }),
    });
  return specs;
}
