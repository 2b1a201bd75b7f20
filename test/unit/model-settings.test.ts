import { defineAgent } from '../../agents/define-agent';
import { createAgentRegistry } from '../../agents/registry';
import { agentInputFromFlags } from '../../cli/commands/agent-flags';
import { UsageError } from '../../cli/help';
import { assertRegistered, InvalidInputError } from '../../client/start-agent';
import { ConfigurationError } from '../../core/errors';
import { resolvedAgentInputSchema } from '../../core/input';
import { checkResolvedInput } from '../../core/input-check';
import { mergeModelSettings, withSettingsFolded } from '../../core/model-settings';
import { resolveAgentInput } from '../../core/resolve-input';
import { resolveAgentInputWithoutZod } from '../../core/resolve-input-without-zod';
import { defineProvider, type ProviderRequest } from '../../providers';
import { prepareAnthropicRequest } from '../../providers/anthropic/prepare-request';
import { prepareOpenAIRequest } from '../../providers/openai/prepare-request';
import { prepareResponsesRequest } from '../../providers/openai-responses/prepare-request';
import { defineTool } from '../../tools';
import { z } from 'zod';

// A run's model settings travel as one object, from the flags or startAgent to the provider's request, and are
// merged with the agent's once. The older shape (settings one by one) stays accepted for callers and runs in flight.

const minimal = { prompt: 'hi', model: 'openai:gpt-4o-mini', workspace: '/tmp/project' };

function resolved(raw: Record<string, unknown>): Record<string, unknown> {
  const check = resolveAgentInput(raw);
  if (!check.ok) throw new Error(check.problems);
  return check.input as Record<string, unknown>;
}

function problemsOf(raw: Record<string, unknown>): string {
  const check = resolveAgentInput(raw);
  if (check.ok) throw new Error(`expected problems, got ${JSON.stringify(check.input)}`);
  return check.problems;
}

describe('the run input carries one modelSettings', () => {
  it('keeps modelSettings as given, and leaves it out when the run sets nothing', () => {
    expect(resolved({ ...minimal, modelSettings: { temperature: 0.3, maxOutputTokens: 300 } }).modelSettings).toEqual({
      temperature: 0.3,
      maxOutputTokens: 300,
    });
    expect(resolved(minimal)).not.toHaveProperty('modelSettings');
    expect(resolved({ ...minimal, modelSettings: {} })).not.toHaveProperty('modelSettings');
  });

  it('resolves the older shape (maxOutputTokens, thinkingBudget, reasoningEffort beside the rest) into modelSettings, and nothing stays beside it', () => {
    const input = resolved({ ...minimal, maxOutputTokens: 300, reasoningEffort: 'low', modelSettings: { temperature: 0.3 } });
    expect(input.modelSettings).toEqual({ maxOutputTokens: 300, reasoningEffort: 'low', temperature: 0.3 });
    for (const name of ['maxOutputTokens', 'thinkingBudget', 'reasoningEffort']) expect(input).not.toHaveProperty(name);
  });

  it("resolves both shapes alike in executeAgent's zod-free resolver (durable-agent/workflow)", () => {
    for (const given of [
      { ...minimal, thinkingBudget: 2048, modelSettings: { temperature: 1 } },
      { ...minimal, modelSettings: { thinkingBudget: 2048, temperature: 1 } },
    ]) {
      expect(resolveAgentInputWithoutZod(structuredClone(given))).toEqual(resolveAgentInput(given));
      expect(resolved(given).modelSettings).toEqual({ thinkingBudget: 2048, temperature: 1 });
    }
  });

  it('accepts a setting given in both shapes with one value, and refuses two values, naming the setting', () => {
    expect(resolved({ ...minimal, reasoningEffort: 'low', modelSettings: { reasoningEffort: 'low' } }).modelSettings).toEqual({
      reasoningEffort: 'low',
    });
    expect(problemsOf({ ...minimal, reasoningEffort: 'low', modelSettings: { reasoningEffort: 'high' } })).toBe(
      'reasoningEffort: reasoningEffort is given twice, with two values: give it once, in modelSettings (reasoningEffort beside it is the older shape)',
    );
  });

  it('refuses settings out of range, each by its place', () => {
    expect(problemsOf({ ...minimal, modelSettings: { temperature: 3 } })).toBe(
      'modelSettings.temperature: Too big: expected number to be <=2',
    );
    expect(problemsOf({ ...minimal, modelSettings: { reasoningEffort: 'extreme' } })).toBe(
      'modelSettings.reasoningEffort: must be one of low, medium, high',
    );
    expect(problemsOf({ ...minimal, thinkingBudget: 100 })).toBe(
      "thinkingBudget: must be at least 1024 tokens (Anthropic's minimum)",
    );
  });
});

describe('the workflow takes an input recorded in the older shape', () => {
  // What a run started before modelSettings holds in its recorded input, replayed or continued as new by today's code.
  const recorded = { ...resolved(minimal), thinkingBudget: 2048, reasoningEffort: 'high', maxOutputTokens: 500 };

  it('accepts it, with the settings in modelSettings, as the zod schema does', () => {
    const ours = checkResolvedInput(structuredClone(recorded));
    const zod = resolvedAgentInputSchema.parse(structuredClone(recorded));
    expect(ours).toEqual({ ok: true, input: zod });
    expect(zod.modelSettings).toEqual({ thinkingBudget: 2048, reasoningEffort: 'high', maxOutputTokens: 500 });
    expect(zod).not.toHaveProperty('thinkingBudget');
  });

  it('refuses a setting given twice with two values, as the zod schema does', () => {
    const twice = { ...recorded, modelSettings: { thinkingBudget: 4096 } };
    expect(resolvedAgentInputSchema.safeParse(twice).success).toBe(false);
    expect(checkResolvedInput(twice)).toEqual({
      ok: false,
      problems:
        'thinkingBudget: thinkingBudget is given twice, with two values: give it once, in modelSettings (thinkingBudget beside it is the older shape)',
    });
  });
});

describe('merging', () => {
  it("lays the run's settings over the agent's, setting by setting; an undefined one changes nothing", () => {
    expect(
      mergeModelSettings({ temperature: 0.2, maxOutputTokens: 1000 }, { temperature: 0.7, maxOutputTokens: undefined }),
    ).toEqual({
      temperature: 0.7,
      maxOutputTokens: 1000,
    });
    expect(mergeModelSettings({ thinkingBudget: 2048 }, undefined)).toEqual({ thinkingBudget: 2048 });
  });

  it('folds without touching anything but the settings', () => {
    const overrides = (value: { model: string; thinkingBudget?: number }) => value;
    expect(withSettingsFolded(overrides({ model: 'm', thinkingBudget: 2048 }))).toEqual({
      model: 'm',
      modelSettings: { thinkingBudget: 2048 },
    });
    expect(withSettingsFolded(overrides({ model: 'm' }))).toEqual({ model: 'm' });
  });
});

describe('the CLI flags', () => {
  const flags = (values: Record<string, string>) => agentInputFromFlags({ model: 'openai:gpt-4o-mini', ...values });

  it("become the run input's modelSettings, one setting each", () => {
    const input = flags({ temperature: '0.3', 'max-output-tokens': '300', 'thinking-budget': '2048', 'reasoning-effort': 'low' });
    expect(input.modelSettings).toEqual({ temperature: 0.3, maxOutputTokens: 300, thinkingBudget: 2048, reasoningEffort: 'low' });
    for (const name of ['maxOutputTokens', 'thinkingBudget', 'reasoningEffort', 'temperature'])
      expect(input).not.toHaveProperty(name);
    expect(flags({})).not.toHaveProperty('modelSettings');
  });

  it('refuses text that is not a number as a usage error, and leaves ranges to the input check', () => {
    expect(() => flags({ temperature: 'warm' })).toThrow(new UsageError('--temperature must be a number, like 0.7, got "warm"'));
    expect(() => flags({ 'max-output-tokens': '1.5' })).toThrow(
      new UsageError('--max-output-tokens must be a whole number, got "1.5"'),
    );
    expect(resolveAgentInput({ ...flags({ temperature: '2.5' }), prompt: 'hi' })).toMatchObject({
      ok: false,
      problems: expect.stringContaining('modelSettings.temperature'),
    });
  });
});

describe("each provider reads the request's modelSettings", () => {
  const request: ProviderRequest = {
    model: 'm',
    messages: [{ role: 'user', content: 'hi' }],
    tools: [],
    toolChoice: 'auto',
    modelSettings: {},
  };
  const settings = { temperature: 0.3, maxOutputTokens: 300, reasoningEffort: 'low' as const, thinkingBudget: 2048 };

  it('OpenAI Chat Completions: temperature, max_completion_tokens, reasoning_effort; no thinking budget', () => {
    const body = prepareOpenAIRequest({ ...request, modelSettings: settings });
    expect(body).toMatchObject({ temperature: 0.3, max_completion_tokens: 300, reasoning_effort: 'low' });
    expect(JSON.stringify(body)).not.toContain('2048');
  });

  it('OpenAI Responses: temperature, max_output_tokens, reasoning.effort; no thinking budget', () => {
    const body = prepareResponsesRequest({ ...request, modelSettings: settings });
    expect(body).toMatchObject({ temperature: 0.3, max_output_tokens: 300, reasoning: { effort: 'low' } });
    expect(JSON.stringify(body)).not.toContain('2048');
  });

  it('Anthropic: temperature and max_tokens; thinking with the budget; no reasoning effort', () => {
    expect(
      prepareAnthropicRequest({ ...request, modelSettings: { temperature: 0.3, maxOutputTokens: 300, reasoningEffort: 'low' } }),
    ).toMatchObject({ temperature: 0.3, max_tokens: 300 });
    const thinking = prepareAnthropicRequest({ ...request, modelSettings: { thinkingBudget: 2048, temperature: 1 } });
    expect(thinking).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2048 }, temperature: 1 });
    expect(JSON.stringify(thinking)).not.toContain('effort');
  });

  it("Anthropic's prepare step refuses a temperature other than 1 while thinking, in words, before any request", () => {
    expect(() => prepareAnthropicRequest({ ...request, modelSettings: { thinkingBudget: 2048, temperature: 0.2 } })).toThrow(
      ConfigurationError,
    );
  });
});

describe('provider-only rules live in their provider', () => {
  const echo = async () => ({
    message: { role: 'assistant' as const, content: 'hi', toolCalls: [] },
    finishReason: 'stop' as const,
    usage: { inputTokens: 0, outputTokens: 0 },
  });
  const problem = (action: () => unknown) => {
    try {
      action();
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('expected an error');
  };

  it("Anthropic's temperature rule binds Anthropic's agents only", () => {
    expect(
      problem(() =>
        defineAgent({
          name: 'cool',
          description: 'd',
          model: 'anthropic:claude-sonnet-4-6',
          modelSettings: { thinkingBudget: 2048, temperature: 0.2 },
        }),
      ),
    ).toContain('agent "cool": modelSettings.temperature cannot be set (other than 1) together with thinkingBudget');
    // OpenAI has no thinking budget to clash with: the setting is ignored there, not refused.
    expect(
      defineAgent({
        name: 'warm',
        description: 'd',
        model: 'openai:gpt-4o-mini',
        modelSettings: { thinkingBudget: 2048, temperature: 0.2 },
      }).modelSettings,
    ).toEqual({
      thinkingBudget: 2048,
      temperature: 0.2,
    });
  });

  it("asks a provider of the user's own for its rules when its agents are registered", () => {
    const picky = defineProvider({
      name: 'picky',
      call: echo,
      modelSettingsProblem: (settings) => (settings.temperature === 0 ? 'picky refuses temperature 0' : undefined),
    });
    const cold = defineAgent({ name: 'cold', description: 'd', model: 'picky:one', modelSettings: { temperature: 0 } });
    expect(problem(() => createAgentRegistry({ providers: [picky], agents: [cold] }))).toBe(
      'agent "cold": picky refuses temperature 0',
    );
  });

  it("reserves the tool names a provider declares, for tools and agents alike (Anthropic's final_output, a provider's own)", () => {
    const tool = (name: string) => defineTool({ name, description: 'd', input: z.object({}), handler: async () => 'x' });
    expect(problem(() => createAgentRegistry({ tools: [tool('final_output')] }))).toBe(
      'tool "final_output": the name is reserved for structured output',
    );
    expect(
      problem(() =>
        createAgentRegistry({ agents: [defineAgent({ name: 'final_output', description: 'd', model: 'openai:gpt-4o-mini' })] }),
      ),
    ).toContain('agent "final_output": the name is reserved for structured output');
    const searching = defineProvider({
      name: 'searching',
      call: echo,
      reservedToolNames: { web_search: "the provider's own web search" },
    });
    expect(problem(() => createAgentRegistry({ providers: [searching], tools: [tool('web_search')] }))).toBe(
      'tool "web_search": the name is reserved for the provider\'s own web search',
    );
    expect(createAgentRegistry({ providers: [searching] }).reservedToolPurpose('web_search')).toBe(
      "the provider's own web search",
    );
    // Names an object has from its prototype are nobody's.
    expect(createAgentRegistry({ tools: [tool('constructor'), tool('toString')] }).tools.has('constructor')).toBe(true);
    expect(problem(() => defineProvider({ name: 'broken', call: echo, reservedToolNames: { x: 1 } as never }))).toContain(
      'reservedToolNames must map each tool name',
    );
  });

  it("refuses a run's settings that break its model's provider's rule before anything starts (the CLI's own worker)", () => {
    const registry = createAgentRegistry();
    const run = {
      prompt: 'hi',
      workspace: '/tmp',
      model: 'anthropic:claude-sonnet-4-6',
      modelSettings: { thinkingBudget: 2048, temperature: 0.5 },
    };
    expect(() => assertRegistered(run, registry)).toThrow(InvalidInputError);
    expect(problem(() => assertRegistered(run, registry))).toContain(
      'agent "default": modelSettings.temperature cannot be set (other than 1) together with thinkingBudget',
    );
    expect(() => assertRegistered({ ...run, model: 'openai:gpt-4o-mini' }, registry)).not.toThrow();
  });
});
