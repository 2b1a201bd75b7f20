import * as z from 'zod/mini';
import { parseModelId } from '../../core/model-id';
import { requiresSomethingToAnswer, somethingToAnswer } from '../../core/something-to-answer';
import { batchSessionProblem } from '../../core/batch-settings';
import { maxPromptChars } from '../../core/limits';
import { withSettingsFolded } from '../../core/model-settings';

/**
 * The workflow's input schema (core/input.ts's resolvedAgentInputSchema) written in `zod/mini`, for the
 * workflow-bundle benchmark only: what the workflow would check its input with if zod/mini replaced the generated
 * JSON Schema and core/json-schema-check.ts. Not used by the engine.
 */
const count = () => z.number().check(z.int(), z.minimum(0));
const positive = () => z.number().check(z.int(), z.minimum(1));
const thinkingPosition = z.object({ text: count(), toolCalls: count() });
const reasoningPart = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('thinking'),
    provider: z.string(),
    model: z.string(),
    text: z.string(),
    signature: z.optional(z.string()),
    id: z.optional(z.string()),
    at: z.optional(thinkingPosition),
  }),
  z.object({
    type: z.literal('redacted_thinking'),
    provider: z.string(),
    model: z.string(),
    data: z.string(),
    at: z.optional(thinkingPosition),
  }),
]);
const message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({
    role: z.literal('assistant'),
    content: z.string(),
    toolCalls: z.array(
      z.object({ id: z.string().check(z.minLength(1)), name: z.string().check(z.minLength(1)), arguments: z.string() }),
    ),
    thinking: z.optional(z.array(reasoningPart)),
  }),
  z.object({
    role: z.literal('tool'),
    toolCallId: z.string().check(z.minLength(1)),
    toolName: z.string(),
    content: z.string(),
    isError: z.boolean(),
  }),
]);
const thinkingBudget = z.number().check(z.int(), z.minimum(1024), z.maximum(1_000_000));
const reasoningEffort = z.enum(['low', 'medium', 'high']);
const modelSettings = z.object({
  maxOutputTokens: z.optional(positive()),
  temperature: z.optional(z.number().check(z.minimum(0), z.maximum(2))),
  thinkingBudget: z.optional(thinkingBudget),
  reasoningEffort: z.optional(reasoningEffort),
  promptCache: z.optional(z.enum(['off', '5m', '1h', '24h'])),
});
const modelId = z.string().check(
  z.superRefine((value, context) => {
    try {
      parseModelId(value);
    } catch (error) {
      context.issues.push({ code: 'custom', message: (error as Error).message, input: value });
    }
  }),
);
const seconds = (max: number) => z.number().check(z.int(), z.minimum(1), z.maximum(max));

export const zodMiniResolvedInput = z.pipe(
  z
    .object({
      prompt: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(maxPromptChars))),
      messages: z.optional(z.array(message)),
      agent: z.string().check(z.regex(/^[a-zA-Z0-9_-]{1,52}$/)),
      model: z.optional(modelId),
      systemPrompt: z.optional(z.string().check(z.maxLength(maxPromptChars))),
      tools: z.optional(z.array(z.string().check(z.minLength(1)))),
      maxIterations: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(10_000))),
      modelSettings: z.optional(modelSettings),
      maxOutputTokens: z.optional(positive()),
      thinkingBudget: z.optional(thinkingBudget),
      reasoningEffort: z.optional(reasoningEffort),
      maxConcurrentTools: z.number().check(z.int(), z.minimum(1), z.maximum(100)),
      maxToolCallsPerReply: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(1000))),
      modelTimeoutSeconds: seconds(3600),
      workspace: z.string().check(z.minLength(1)),
      session: z.optional(z.object({ idleTimeoutSeconds: seconds(30 * 24 * 3600) })),
      maxSessionTokens: z.optional(positive()),
      maxCostUsd: z.optional(z.number().check(z.positive())),
      stream: z.optional(z.boolean()),
      batch: z.optional(
        z.object({
          firstCheckSeconds: z.number().check(z.minimum(0.05), z.maximum(3600)),
          maxCheckIntervalSeconds: z.number().check(z.minimum(0.05), z.maximum(6 * 3600)),
          maxSubmissions: z.number().check(z.int(), z.minimum(1), z.maximum(10)),
        }),
      ),
      continueAsNewAfterModelCalls: z.optional(positive()),
      context: z.object({
        compactAfterTurns: z.optional(positive()),
        maxContextTokens: z.optional(positive()),
        keepRecentTurns: positive(),
      }),
      maxSubagentDepth: z.number().check(z.int(), z.minimum(0), z.maximum(10)),
      maxHandoffs: z.number().check(z.int(), z.minimum(0), z.maximum(100)),
      approval: z.optional(z.object({ tools: z.array(z.string()), skip: z.boolean(), timeoutSeconds: seconds(30 * 24 * 3600) })),
      forkedFrom: z.optional(z.object({ workflowId: z.string(), runId: z.string(), messageIndex: count() })),
      subagent: z.optional(z.object({ depth: positive(), parentWorkflowId: z.string() })),
      carried: z.optional(z.unknown()),
    })
    .check(
      z.refine(requiresSomethingToAnswer, somethingToAnswer()),
      z.refine((input) => !(input.batch && input.session), { message: batchSessionProblem, path: ['batch'] }),
    ),
  z.transform((input) => withSettingsFolded(input)),
);
