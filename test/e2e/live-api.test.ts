import { connectToTestServer, createTestWorker, runAgent, uniqueTaskQueue } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';

/**
 * Runs the agent against the real provider APIs. Opt-in, since it costs money:
 * AGENT_LIVE_TESTS=1 with OPENAI_API_KEY and/or ANTHROPIC_API_KEY; skipped otherwise.
 */
const live = process.env.AGENT_LIVE_TESTS === '1';
const providers = [
  { model: process.env.AGENT_LIVE_OPENAI_MODEL ?? 'openai:gpt-4o-mini', key: 'OPENAI_API_KEY' },
  { model: process.env.AGENT_LIVE_ANTHROPIC_MODEL ?? 'anthropic:claude-haiku-4-5', key: 'ANTHROPIC_API_KEY' },
];

describe.each(providers)('live $model', ({ model, key }) => {
  const enabled = live && Boolean(process.env[key]);
  (enabled ? it : it.skip)(
    'reads a file with a tool and answers with what it says',
    async () => {
      const environment = await connectToTestServer();
      try {
        const workspace = await makeWorkspace({ 'secret-word.txt': 'periwinkle' });
        const taskQueue = uniqueTaskQueue('live');
        const worker = await createTestWorker(environment, { taskQueue, env: process.env });
        const { result } = await worker.runUntil(
          runAgent(environment, taskQueue, {
            prompt: 'Read secret-word.txt with the read_file tool and reply with the word it contains, nothing else.',
            model,
            tools: ['read_file'],
            workspace,
            maxIterations: 4,
          }),
        );
        expect(result.status).toBe('completed');
        expect(result.answer.toLowerCase()).toContain('periwinkle');
        expect(result.iterations).toBeGreaterThanOrEqual(2);
      } finally {
        await environment.teardown();
      }
    },
    120_000,
  );
});
