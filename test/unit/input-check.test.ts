import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { resolvedAgentInputSchema, resolvedInputJsonSchemaFromZod } from '../../core/input';
import { checkResolvedInput, resolvedInputJsonSchema } from '../../core/input-check';
import { assertUnderstood } from '../../core/json-schema-check';
import { resolveAgentInput } from '../../core/resolve-input';
import { inputVariants } from '../support/input-variants';

// The workflow checks its input without zod (core/input-check.ts). These tests hold that check to the zod schema:
// the same JSON Schema, and the same verdict and output on over two thousand inputs.

function resolved(raw: Record<string, unknown>): Record<string, unknown> {
  const check = resolveAgentInput(raw);
  if (!check.ok) throw new Error(check.problems);
  return check.input as Record<string, unknown>;
}

const messages = [
  { role: 'system', content: 'be brief' },
  { role: 'user', content: 'read it' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"a"}' }],
    thinking: [
      { type: 'thinking', provider: 'anthropic', model: 'claude', text: 'hm', signature: 'sig', at: { text: 0, toolCalls: 0 } },
      { type: 'redacted_thinking', provider: 'anthropic', model: 'claude', data: 'opaque' },
    ],
  },
  { role: 'tool', toolCallId: 'call_1', toolName: 'read_file', content: 'alpha', isError: false },
];
const bases: Array<Record<string, unknown>> = [
  resolved({ prompt: 'list the files', model: 'openai:gpt-4o-mini', workspace: '/tmp/project' }),
  resolved({
    messages,
    agent: 'researcher',
    model: 'anthropic:claude-haiku-4-5',
    systemPrompt: 'you research',
    tools: ['read_file'],
    maxIterations: 5,
    maxOutputTokens: 100,
    thinkingBudget: 2048,
    reasoningEffort: 'high',
    workspace: '/tmp/project',
    session: { idleTimeoutSeconds: 60 },
    maxSessionTokens: 1000,
    maxCostUsd: 0.5,
    stream: true,
    continueAsNewAfterModelCalls: 10,
    context: { compactAfterTurns: 2, maxContextTokens: 5000, keepRecentTurns: 3 },
    approval: { tools: ['write_file'], skip: false, timeoutSeconds: 60 },
    forkedFrom: { workflowId: 'w', runId: 'r', messageIndex: 2 },
    subagent: { depth: 1, parentWorkflowId: 'p' },
  }),
  // What a run carries to its next run is not in this schema: core/carried-state.ts reads it (test/unit/carried-state.test.ts).
  resolved({ model: 'openai:gpt-4o-mini', workspace: '/tmp/project', session: {} }),
];

describe('checkResolvedInput, the workflow side, without zod', () => {
  it('checks against the JSON Schema that the zod schema of core/input.ts makes (npm run generate:input-schema)', async () => {
    const file = JSON.parse(await readFile(path.join(__dirname, '..', '..', 'core', 'resolved-input.schema.json'), 'utf8'));
    expect(file).toEqual(resolvedInputJsonSchemaFromZod());
    expect(resolvedInputJsonSchema).toEqual(file);
    expect(() => assertUnderstood(resolvedInputJsonSchema)).not.toThrow();
  });

  it('reaches the verdict zod reaches, and keeps what zod keeps, on over two thousand inputs', () => {
    const inputs = inputVariants(bases);
    expect(inputs.length).toBeGreaterThan(2000);
    let refused = 0;
    const verdictsApart: unknown[] = [];
    for (const input of inputs) {
      const zod = resolvedAgentInputSchema.safeParse(input);
      const ours = checkResolvedInput(structuredClone(input));
      if (ours.ok !== zod.success) verdictsApart.push({ input: JSON.stringify(input), ours: ours.ok, zod: zod.success });
      // jest's toEqual only where the cheap strict comparison differs (toEqual also ignores undefined properties).
      if (ours.ok && zod.success && !isDeepStrictEqual(ours.input, zod.data)) expect(ours.input).toEqual(zod.data);
      if (!ours.ok) refused++;
    }
    expect(verdictsApart).toEqual([]);
    // Most variants break the schema somewhere: the comparison covers refusals, not only acceptances.
    expect(refused).toBeGreaterThan(inputs.length / 2);
  });

  it('names each field that is wrong, in the order of the schema, and what is wrong with it', () => {
    const [base] = bases;
    const problems = (input: unknown) => {
      const check = checkResolvedInput(input);
      if (check.ok) throw new Error('expected problems');
      return check.problems;
    };
    expect(problems(undefined)).toBe('expected object, got undefined');
    expect(problems({ ...base, maxIterations: -1 })).toBe('maxIterations: must be at least 1');
    expect(problems({ ...base, maxIterations: 1.5, model: 'gpt-4o' })).toBe(
      'model: model must look like provider:model (for example openai:gpt-4o-mini), got "gpt-4o"; maxIterations: expected integer, got number 1.5',
    );
    expect(problems({ ...base, prompt: '   ' })).toBe('prompt: prompt must not be empty');
    expect(problems({ ...base, prompt: undefined })).toBe('prompt: either a prompt or initial messages are required');
    expect(problems({ ...base, reasoningEffort: 'max' })).toBe('reasoningEffort: must be one of "low", "medium", "high"');
    expect(problems({ ...base, messages: [{ role: 'tool', toolCallId: '', toolName: 'x', content: 'y' }] })).toBe(
      'messages.0.toolCallId: must not be empty; messages.0.isError: required',
    );
    expect(problems({ ...base, messages: [{ role: 'robot', content: 'beep' }] })).toBe(
      'messages.0: matches none of the 4 allowed shapes',
    );
  });
});
