import { resolveAgentInput } from '../../core/resolve-input';
import { resolveAgentInputWithoutZod } from '../../core/resolve-input-without-zod';
import { defaultBatchSettings } from '../../core/batch-settings';
import { agentInputFromFlags } from '../../cli/commands/agent-flags';
import { batchSettingsOf, waitForEnd } from '../../workflows/batch-model-call';
import type { AgentSpec } from '../../core/agent-spec';
import type { BatchState } from '../../providers/batch-capability';

const base = { prompt: 'p', model: 'openai:gpt-4o-mini', workspace: '/tmp' };
const resolvers = [
  ['resolveAgentInput', resolveAgentInput],
  ['resolveAgentInputWithoutZod', resolveAgentInputWithoutZod],
] as const;

describe.each(resolvers)('batch in the run input (%s)', (_name, resolve) => {
  it('stands for every default setting when true, and for none when false or absent', () => {
    const on = resolve({ ...base, batch: true });
    expect(on.ok && on.input.batch).toEqual(defaultBatchSettings);
    for (const off of [{ ...base, batch: false }, base]) {
      const check = resolve(off);
      expect(check.ok && check.input.batch).toBeUndefined();
    }
  });

  it('fills in the settings a caller leaves out', () => {
    const check = resolve({ ...base, batch: { firstCheckSeconds: 5 } });
    expect(check.ok && check.input.batch).toEqual({ ...defaultBatchSettings, firstCheckSeconds: 5 });
  });

  it('refuses batch mode for a session, saying why', () => {
    const check = resolve({ ...base, batch: true, session: { idleTimeoutSeconds: 60 } });
    expect(check).toEqual({ ok: false, problems: expect.stringMatching(/^batch: batch mode is for runs nobody waits on/) });
  });

  it('refuses settings out of range', () => {
    expect(resolve({ ...base, batch: { maxSubmissions: 0 } }).ok).toBe(false);
    expect(resolve({ ...base, batch: 'yes' }).ok).toBe(false);
  });
});

describe('--batch', () => {
  it('puts batch: true in the run input', () => {
    expect(agentInputFromFlags({ batch: true })).toMatchObject({ batch: true });
    expect(agentInputFromFlags({})).not.toHaveProperty('batch');
  });
});

describe('whether a model call goes through a batch', () => {
  const agent = { batch: true } as AgentSpec;
  const input = (extra: object) => {
    const check = resolveAgentInput({ ...base, ...extra });
    if (!check.ok) throw new Error(check.problems);
    return check.input;
  };

  it("follows the run's setting, else the agent's for a one-shot run, never a session's", () => {
    expect(batchSettingsOf(input({ batch: { firstCheckSeconds: 1 } }), {} as AgentSpec)?.firstCheckSeconds).toBe(1);
    expect(batchSettingsOf(input({}), agent)).toEqual(defaultBatchSettings);
    expect(batchSettingsOf(input({ session: { idleTimeoutSeconds: 60 } }), agent)).toBeUndefined();
    expect(batchSettingsOf(input({}), {} as AgentSpec)).toBeUndefined();
  });
});

describe('waiting for a batch', () => {
  it('waits before each check, doubling the wait up to the longest, until the batch is no longer pending', async () => {
    const waits: number[] = [];
    const states: BatchState[] = [
      ...Array.from({ length: 5 }, () => ({ status: 'pending' as const, detail: 'in_progress' })),
      { status: 'ended' },
    ];
    const ended = await waitForEnd(
      { firstCheckSeconds: 30, maxCheckIntervalSeconds: 300, maxSubmissions: 3 },
      async (milliseconds) => {
        waits.push(milliseconds);
      },
      async () => states.shift()!,
    );
    expect(ended).toEqual({ status: 'ended' });
    expect(waits).toEqual([30_000, 60_000, 120_000, 240_000, 300_000, 300_000]);
  });
});
