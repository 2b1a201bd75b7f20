import { isDeepStrictEqual } from 'node:util';
import { resolveAgentInput } from '../../core/resolve-input';
import { resolveAgentInputWithoutZod } from '../../core/resolve-input-without-zod';
import { inputVariants } from '../support/input-variants';

// executeAgent (durable-agent/workflow) resolves its input in the caller's workflow, where zod would cost every workflow
// start (bench/NOTES.md). Both resolvers fill in the same defaults (core/input-defaults.ts); the zod-free one checks with the
// workflow's own check, which must reach resolveAgentInput's verdict and output.

const messages = [
  { role: 'system', content: 'be brief' },
  { role: 'user', content: 'read it' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"a"}' }] },
  { role: 'tool', toolCallId: 'call_1', toolName: 'read_file', content: 'alpha', isError: false },
];

// Callers' inputs: most settings left out, so that every default is exercised, and some given, partly.
const bases: Array<Record<string, unknown>> = [
  { prompt: 'list the files', model: 'openai:gpt-4o-mini', workspace: '/tmp/project' },
  { agent: 'researcher', messages, workspace: '/tmp/project' },
  {
    prompt: 'go',
    agent: 'researcher',
    model: 'anthropic:claude-haiku-4-5',
    tools: ['read_file'],
    maxIterations: 5,
    maxConcurrentTools: 3,
    maxToolCallsPerReply: 20,
    modelTimeoutSeconds: 30,
    maxSubagentDepth: 1,
    maxHandoffs: 2,
    workspace: '/tmp/project',
    session: { idleTimeoutSeconds: 60 },
    stream: true,
    context: { compactAfterTurns: 2, keepRecentTurns: 3 },
    approval: { tools: ['write_file'], skip: true, timeoutSeconds: 60 },
  },
  {
    model: 'openai:gpt-4o-mini',
    workspace: '/tmp/project',
    session: {},
    approval: { tools: ['write_file'] },
    context: { maxContextTokens: 5000 },
  },
];

describe("resolveAgentInputWithoutZod, executeAgent's resolver", () => {
  it('fills in what resolveAgentInput fills in, and refuses what it refuses, on over a thousand inputs', () => {
    const inputs = inputVariants(bases);
    expect(inputs.length).toBeGreaterThan(1000);
    let refused = 0;
    const verdictsApart: unknown[] = [];
    for (const input of inputs) {
      const zod = resolveAgentInput(input);
      const ours = resolveAgentInputWithoutZod(structuredClone(input));
      if (ours.ok !== zod.ok) verdictsApart.push({ input: JSON.stringify(input), ours: ours.ok, zod: zod.ok });
      // jest's toEqual only where the cheap strict comparison differs (toEqual also ignores undefined properties).
      if (ours.ok && zod.ok && !isDeepStrictEqual(ours.input, zod.input)) {
        const context = JSON.stringify(input);
        expect({ input: context, resolved: ours.input }).toEqual({ input: context, resolved: zod.input });
      }
      if (!ours.ok) refused++;
    }
    expect(verdictsApart).toEqual([]);
    expect(refused).toBeGreaterThan(inputs.length / 3);
  });

  it("leaves the caller's input as it was", () => {
    const input = {
      prompt: '  padded  ',
      model: 'openai:gpt-4o-mini',
      workspace: '/tmp/project',
      approval: { tools: ['write_file'] },
    };
    const before = structuredClone(input);
    const check = resolveAgentInputWithoutZod(input);
    expect(check).toMatchObject({ ok: true, input: { prompt: 'padded', approval: { tools: ['write_file'], skip: false } } });
    expect(input).toEqual(before);
  });

  it('says what is wrong as resolveAgentInput does', () => {
    const problems = (input: unknown) => {
      const check = resolveAgentInputWithoutZod(input);
      return check.ok ? 'accepted' : check.problems;
    };
    expect(problems({ prompt: 'go', workspace: '/tmp/project' })).toBe(
      'model: a model (provider:model) is required when no agent is named',
    );
    expect(problems({ prompt: 'go', workspace: '/tmp/project' })).toBe(
      (resolveAgentInput({ prompt: 'go', workspace: '/tmp/project' }) as { problems: string }).problems,
    );
    expect(problems({ agent: 'researcher', workspace: '/tmp/project' })).toBe(
      'prompt: either a prompt or initial messages are required',
    );
    expect(problems({ agent: 'researcher', prompt: 'go', workspace: '/tmp/project', maxIterations: 0 })).toBe(
      'maxIterations: must be at least 1',
    );
  });
});
