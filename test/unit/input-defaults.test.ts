import { inputDefaults } from '../../core/input-defaults';
import { resolveAgentInput } from '../../core/resolve-input';
import { resolveAgentInputWithoutZod } from '../../core/resolve-input-without-zod';

// The defaults live in one table (core/input-defaults.ts), applied by one function that both resolvers call: what a
// caller leaves out comes from there, on the client (zod) and in workflow code (executeAgent, without zod) alike.

const resolvers = [
  ['resolveAgentInput', resolveAgentInput],
  ['resolveAgentInputWithoutZod', resolveAgentInputWithoutZod],
] as const;

describe.each(resolvers)('%s', (_name, resolve) => {
  it("fills in every setting of the table that the caller left out, and the settings objects' fields", () => {
    const check = resolve({ prompt: 'go', model: 'openai:gpt-4o-mini', workspace: '/tmp/project', session: {}, context: {} });
    if (!check.ok) throw new Error(check.problems);
    expect(check.input).toMatchObject(inputDefaults.settings);
    expect(check.input).toMatchObject(inputDefaults.noAgent);
    expect(check.input.approval).toEqual(inputDefaults.inside.approval);
    expect(check.input.context).toEqual(inputDefaults.inside.context);
    expect(check.input.session).toEqual(inputDefaults.inside.session);
    expect(check.input.batch).toBeUndefined();
  });

  it('keeps what the caller gave, and fills only the rest of a settings object (batch: true is every default)', () => {
    const check = resolve({
      prompt: 'go',
      agent: 'researcher',
      workspace: '/tmp/project',
      maxHandoffs: 0,
      stream: true,
      approval: { tools: ['write_file'] },
      batch: true,
    });
    if (!check.ok) throw new Error(check.problems);
    expect(check.input).toMatchObject({ agent: 'researcher', maxHandoffs: 0, stream: true });
    expect(check.input.approval).toEqual({ ...inputDefaults.inside.approval, tools: ['write_file'] });
    expect(check.input.batch).toEqual(inputDefaults.inside.batch);
    // A named agent keeps its own tools and iteration limit: the no-agent defaults are not applied.
    expect(check.input.tools).toBeUndefined();
    expect(check.input.maxIterations).toBeUndefined();
  });

  it('requires a model when no agent is named', () => {
    expect(resolve({ prompt: 'go', workspace: '/tmp/project' })).toEqual({
      ok: false,
      problems: 'model: a model (provider:model) is required when no agent is named',
    });
  });

  it("leaves the table's arrays unshared, so a resolved input changed later cannot change a default", () => {
    const check = resolve({ prompt: 'go', model: 'openai:gpt-4o-mini', workspace: '/tmp/project' });
    if (!check.ok) throw new Error(check.problems);
    check.input.approval!.tools.push('write_file');
    check.input.tools!.push('read_file');
    expect(inputDefaults.inside.approval.tools).toEqual([]);
    expect(inputDefaults.noAgent.tools).toEqual([]);
  });
});
