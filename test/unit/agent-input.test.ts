import { ConfigurationError } from '../../core/errors';
import { checkResolvedInput } from '../../core/input-check';
import { resolveAgentInput as checkAgentInput } from '../../core/resolve-input';
import { parseModelId } from '../../core/model-id';

const minimal = { prompt: 'list the files', model: 'openai:gpt-4o-mini', workspace: '/tmp/project' };
// What a run that names no agent gets: the default agent with the caller's settings, and every run setting.
const resolvedDefaults = {
  agent: 'default',
  tools: [],
  maxIterations: 20,
  maxConcurrentTools: 8,
  maxToolCallsPerReply: 64,
  modelTimeoutSeconds: 300,
  maxSubagentDepth: 3,
  maxHandoffs: 10,
  stream: false,
  approval: { tools: [], skip: false, timeoutSeconds: 3600 },
  context: { keepRecentTurns: 4 },
};

function problemsOf(raw: unknown): string {
  const check = checkAgentInput(raw);
  if (check.ok) throw new Error(`expected problems, got valid input ${JSON.stringify(check.input)}`);
  return check.problems;
}

describe('resolveAgentInput', () => {
  it('fills in every default, so the workflow receives explicit settings', () => {
    expect(checkAgentInput(minimal)).toEqual({
      ok: true,
      input: { ...minimal, ...resolvedDefaults },
    });
  });

  it('trims the prompt', () => {
    expect(checkAgentInput({ ...minimal, prompt: '  hi  ' })).toMatchObject({ ok: true, input: { prompt: 'hi' } });
  });

  it('accepts initial messages instead of a prompt', () => {
    const messages = [
      { role: 'user', content: 'read a.txt' },
      { role: 'assistant', content: 'ok', toolCalls: [] },
    ];
    expect(checkAgentInput({ model: minimal.model, workspace: minimal.workspace, messages })).toEqual({
      ok: true,
      input: { model: minimal.model, workspace: minimal.workspace, messages, ...resolvedDefaults },
    });
  });

  it('requires a prompt or messages', () => {
    expect(problemsOf({ model: minimal.model, workspace: minimal.workspace })).toBe(
      'prompt: either a prompt or initial messages are required',
    );
    expect(problemsOf({ model: minimal.model, workspace: minimal.workspace, messages: [] })).toBe(
      'prompt: either a prompt or initial messages are required',
    );
  });

  it.each(['', '   '])('refuses the empty prompt %p', (prompt) => {
    expect(problemsOf({ ...minimal, prompt })).toBe('prompt: prompt must not be empty');
  });

  it('passes a thinking budget and a reasoning effort through as modelSettings, with no default, and refuses ones no provider accepts', () => {
    expect(checkAgentInput({ ...minimal, modelSettings: { thinkingBudget: 2048, reasoningEffort: 'high' } })).toEqual({
      ok: true,
      input: { ...minimal, ...resolvedDefaults, modelSettings: { thinkingBudget: 2048, reasoningEffort: 'high' } },
    });
    // The older shape, one by one beside the rest, is resolved into the same input.
    expect(checkAgentInput({ ...minimal, thinkingBudget: 2048, reasoningEffort: 'high' })).toEqual({
      ok: true,
      input: { ...minimal, ...resolvedDefaults, modelSettings: { thinkingBudget: 2048, reasoningEffort: 'high' } },
    });
    expect(problemsOf({ ...minimal, modelSettings: { thinkingBudget: 1000 } })).toBe(
      "modelSettings.thinkingBudget: must be at least 1024 tokens (Anthropic's minimum)",
    );
    expect(problemsOf({ ...minimal, thinkingBudget: 1000 })).toBe(
      "thinkingBudget: must be at least 1024 tokens (Anthropic's minimum)",
    );
    expect(problemsOf({ ...minimal, reasoningEffort: 'extreme' })).toBe('reasoningEffort: must be one of low, medium, high');
  });

  it("accepts any provider name in the model id: which providers exist is the registry's business", () => {
    expect(checkAgentInput({ ...minimal, model: 'mistral:large' })).toMatchObject({ ok: true });
  });

  it('names no agent: the default agent, with tools defaulting to none; names one: nothing of the agent is filled in', () => {
    expect(checkAgentInput({ ...minimal, agent: 'researcher', model: undefined })).toEqual({
      ok: true,
      input: {
        prompt: minimal.prompt,
        workspace: minimal.workspace,
        agent: 'researcher',
        maxConcurrentTools: 8,
        maxToolCallsPerReply: 64,
        modelTimeoutSeconds: 300,
        maxSubagentDepth: 3,
        maxHandoffs: 10,
        stream: false,
        approval: resolvedDefaults.approval,
        context: { keepRecentTurns: 4 },
      },
    });
    expect(problemsOf({ prompt: minimal.prompt, workspace: minimal.workspace })).toBe(
      'model: a model (provider:model) is required when no agent is named',
    );
  });

  it('refuses a model without a provider prefix', () => {
    expect(problemsOf({ ...minimal, model: 'gpt-4o' })).toBe(
      'model: model must look like provider:model (for example openai:gpt-4o-mini), got "gpt-4o"',
    );
  });

  it.each([0, -5])('refuses maxIterations %p', (maxIterations) => {
    expect(problemsOf({ ...minimal, maxIterations })).toBe('maxIterations: maxIterations must be at least 1');
  });

  it('requires a workspace', () => {
    expect(problemsOf({ prompt: minimal.prompt, model: minimal.model })).toBe(
      'workspace: Invalid input: expected string, received undefined',
    );
  });

  it('joins several problems, each naming its field', () => {
    expect(problemsOf({ ...minimal, model: 'gpt-4o', maxIterations: 0 })).toBe(
      'model: model must look like provider:model (for example openai:gpt-4o-mini), got "gpt-4o"; ' +
        'maxIterations: maxIterations must be at least 1',
    );
  });
});

function errorFrom(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('parseModelId', () => {
  it('splits provider and model at the first colon', () => {
    expect(parseModelId('openai:gpt-4o-mini')).toEqual({ provider: 'openai', model: 'gpt-4o-mini' });
    expect(parseModelId('anthropic:claude-sonnet-4-5')).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(parseModelId('openai:ft:gpt-4o:org:123')).toEqual({ provider: 'openai', model: 'ft:gpt-4o:org:123' });
  });

  it.each(['gpt-4o', 'openai:', ':gpt-4o', ''])('refuses %p as malformed', (value) => {
    const error = errorFrom(() => parseModelId(value));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toBe(`model must look like provider:model (for example openai:gpt-4o-mini), got "${value}"`);
  });

  it('refuses a provider name that is not lowercase words joined by dashes', () => {
    const error = errorFrom(() => parseModelId('Open AI:gpt'));
    expect(error).toBeInstanceOf(ConfigurationError);
  });
});

describe('checkResolvedInput (the workflow side)', () => {
  it('accepts what resolveAgentInput produced, unchanged', () => {
    const resolved = checkAgentInput(minimal);
    if (!resolved.ok) throw new Error(resolved.problems);
    expect(checkResolvedInput(resolved.input)).toEqual({ ok: true, input: resolved.input });
  });

  it('applies no default: a setting left out is a problem, not a value the replaying code chooses', () => {
    const check = checkResolvedInput(minimal);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.problems).toMatch(
      /^agent: .*; maxConcurrentTools: .*; modelTimeoutSeconds: .*; context: .*; maxSubagentDepth: .*; maxHandoffs: /,
    );
  });
});
