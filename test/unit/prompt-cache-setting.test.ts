import { agentInputFromFlags } from '../../cli/commands/agent-flags';
import { checkResolvedInput } from '../../core/input-check';
import { resolveAgentInput } from '../../core/resolve-input';

// The prompt-cache setting travels like every model setting: --prompt-cache becomes modelSettings.promptCache,
// checked with the rest of the input, by zod and by the workflow's own zod-free check alike.

const minimal = { prompt: 'hi', model: 'anthropic:claude-sonnet-4-5', workspace: '/tmp/project' };

describe('promptCache', () => {
  it('comes from --prompt-cache', () => {
    const input = agentInputFromFlags({ model: 'anthropic:claude-sonnet-4-5', 'prompt-cache': '1h' });
    expect(input.modelSettings).toEqual({ promptCache: '1h' });
  });

  it.each(['off', '5m', '1h', '24h'])('accepts %s in both input checks', (setting) => {
    const check = resolveAgentInput({ ...minimal, modelSettings: { promptCache: setting } });
    expect(check.ok).toBe(true);
    if (check.ok) expect(checkResolvedInput(check.input)).toMatchObject({ ok: true });
  });

  it('refuses any other value, naming the ones it takes', () => {
    const check = resolveAgentInput({ ...minimal, modelSettings: { promptCache: 'forever' } });
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.problems).toMatch(/promptCache.*must be one of off, 5m, 1h, 24h/s);
  });
});
