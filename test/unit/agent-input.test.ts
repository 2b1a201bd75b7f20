import { ConfigurationError } from '../../core/errors';
import { checkResolvedInput } from '../../core/input';
import { resolveAgentInput as checkAgentInput } from '../../core/resolve-input';
import { parseModelId } from '../../core/model-id';

const minimal = { prompt: 'list the files', model: 'openai:gpt-4o-mini', workspace: '/tmp/project' };

function problemsOf(raw: unknown): string {
  const check = checkAgentInput(raw);
  if (check.ok) throw new Error(`expected problems, got valid input ${JSON.stringify(check.input)}`);
  return check.problems;
}

describe('resolveAgentInput', () => {
  it('fills in every default, so the workflow receives explicit settings', () => {
    expect(checkAgentInput(minimal)).toEqual({
      ok: true,
      input: { ...minimal, tools: [], maxIterations: 20, maxConcurrentTools: 8, modelTimeoutSeconds: 300, context: { keepRecentTurns: 4 } },
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
      input: { model: minimal.model, workspace: minimal.workspace, messages, tools: [], maxIterations: 20, maxConcurrentTools: 8, modelTimeoutSeconds: 300, context: { keepRecentTurns: 4 } },
    });
  });

  it('requires a prompt or messages', () => {
    expect(problemsOf({ model: minimal.model, workspace: minimal.workspace })).toBe('prompt: either a prompt or initial messages are required');
    expect(problemsOf({ model: minimal.model, workspace: minimal.workspace, messages: [] })).toBe(
      'prompt: either a prompt or initial messages are required',
    );
  });

  it.each(['', '   '])('refuses the empty prompt %p', (prompt) => {
    expect(problemsOf({ ...minimal, prompt })).toBe('prompt: prompt must not be empty');
  });

  it('refuses an unknown provider', () => {
    expect(problemsOf({ ...minimal, model: 'mistral:large' })).toBe(
      'model: unknown provider "mistral" in model "mistral:large"; known providers: openai, anthropic',
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
    expect(problemsOf({ prompt: minimal.prompt, model: minimal.model })).toBe('workspace: Invalid input: expected string, received undefined');
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

  it('refuses an unknown provider with a ConfigurationError', () => {
    const error = errorFrom(() => parseModelId('ollama:llama3'));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toBe('unknown provider "ollama" in model "ollama:llama3"; known providers: openai, anthropic');
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
    expect(check.ok ? '' : check.problems).toMatch(/^tools: .*; maxIterations: .*; maxConcurrentTools: .*; modelTimeoutSeconds: .*; context: /);
  });
});
