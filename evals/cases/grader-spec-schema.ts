import { z } from 'zod';
import type { GraderSpec } from '../../core/eval-types';

/** core/eval-types.ts's GraderSpec, checked: what a dataset line's `expect` must come to. */
const argumentsSchema = z.record(z.string(), z.unknown());

export const graderSpecSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('equals'), value: z.string(), ignoreCase: z.boolean().optional() }),
  z.strictObject({ type: z.literal('contains'), value: z.string(), ignoreCase: z.boolean().optional() }),
  z.strictObject({ type: z.literal('regex'), pattern: z.string(), flags: z.string().optional() }),
  z.strictObject({ type: z.literal('output-schema'), schema: argumentsSchema.optional() }),
  z.strictObject({
    type: z.literal('tool-calls'),
    calls: z.array(z.strictObject({ name: z.string().min(1), arguments: argumentsSchema.optional() })).optional(),
    only: z.array(z.string().min(1)).optional(),
  }),
  z.strictObject({
    type: z.literal('bounds'),
    maxCostUsd: z.number().min(0).optional(),
    maxIterations: z.number().int().min(0).optional(),
    maxToolCalls: z.number().int().min(0).optional(),
  }),
  z.strictObject({
    type: z.literal('judge'),
    rubric: z.string().min(1),
    model: z.string().min(1),
    passScore: z.number().min(0).max(1).optional(),
  }),
  z.strictObject({ type: z.literal('custom'), name: z.string().min(1), options: argumentsSchema.optional() }),
]) satisfies z.ZodType<GraderSpec>;
