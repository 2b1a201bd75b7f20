import os from 'node:os';
import { ApplicationFailure } from '@temporalio/common';
import { createPrepareRun } from '../../activities/prepare-run';
import { defineAgent } from '../../agents/define-agent';
import { createAgentRegistry } from '../../agents/registry';

const careful = defineAgent({
  name: 'careful',
  description: 'Answers with care.',
  model: 'anthropic:claude-sonnet-4-6',
  modelSettings: { temperature: 0.2, maxOutputTokens: 1000 },
  handoffs: [
    defineAgent({
      name: 'thinker',
      description: 'Thinks.',
      model: 'anthropic:claude-sonnet-4-6',
      modelSettings: { thinkingBudget: 4096 },
    }),
  ],
});
const prepareRun = createPrepareRun(createAgentRegistry({ agents: [careful] }), os.tmpdir(), {});

describe('prepareRun overrides of model settings', () => {
  it("merges the run's model settings over the entry agent's only, keeping its other settings", async () => {
    const setup = await prepareRun({
      agent: 'careful',
      overrides: { modelSettings: { reasoningEffort: 'low', maxOutputTokens: 2000, temperature: 0.7 } },
      workspace: os.tmpdir(),
    });
    expect(setup.agents.careful.modelSettings).toEqual({ temperature: 0.7, maxOutputTokens: 2000, reasoningEffort: 'low' });
    expect(setup.agents.thinker.modelSettings).toEqual({ thinkingBudget: 4096 });
  });

  it('takes the older overrides (a prepareRun scheduled by a workflow of earlier code) the same way', async () => {
    const setup = await prepareRun({
      agent: 'careful',
      overrides: { reasoningEffort: 'low', maxOutputTokens: 2000 },
      workspace: os.tmpdir(),
    });
    expect(setup.agents.careful.modelSettings).toEqual({ temperature: 0.2, maxOutputTokens: 2000, reasoningEffort: 'low' });
  });

  it("keeps the agent's settings whole when the run sets none", async () => {
    const setup = await prepareRun({ agent: 'careful', overrides: {}, workspace: os.tmpdir() });
    expect(setup.agents.careful.modelSettings).toEqual({ temperature: 0.2, maxOutputTokens: 1000 });
  });

  it('refuses a thinking budget for an agent whose temperature Anthropic would refuse with it, before any model call', async () => {
    const failure = await prepareRun({
      agent: 'careful',
      overrides: { modelSettings: { thinkingBudget: 2048 } },
      workspace: os.tmpdir(),
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({
      type: 'AgentConfigurationError',
      nonRetryable: true,
      message: expect.stringContaining(
        'agent "careful": modelSettings.temperature cannot be set (other than 1) together with thinkingBudget',
      ),
    });
  });
});
