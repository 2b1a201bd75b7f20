import type { AgentInput } from '../../core/resolve-input';
import type { AssistantMessage } from '../../core/messages';
import { messagesQuery } from '../../workflows/definitions';
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

/** Runs an agent on the live API with its own worker; returns the result and the conversation it kept. */
async function runLive(input: Omit<AgentInput, 'workspace'>, files: Record<string, string>) {
  const environment = await connectToTestServer();
  try {
    const workspace = await makeWorkspace(files);
    const taskQueue = uniqueTaskQueue('live');
    const worker = await createTestWorker(environment, { taskQueue, env: process.env });
    return await worker.runUntil(async () => {
      const { result, workflowId } = await runAgent(environment, taskQueue, { ...input, workspace });
      return { result, messages: await environment.client.workflow.getHandle(workflowId).query(messagesQuery) };
    });
  } finally {
    await environment.teardown();
  }
}

describe.each(providers)('live $model', ({ model, key }) => {
  const enabled = live && Boolean(process.env[key]);
  (enabled ? it : it.skip)(
    'reads a file with a tool and answers with what it says',
    async () => {
      const { result } = await runLive(
        {
          prompt: 'Read secret-word.txt with the read_file tool and reply with the word it contains, nothing else.',
          model,
          tools: ['read_file'],
          maxIterations: 4,
        },
        { 'secret-word.txt': 'periwinkle' },
      );
      expect(result.status).toBe('completed');
      expect(result.answer.toLowerCase()).toContain('periwinkle');
      expect(result.iterations).toBeGreaterThanOrEqual(2);
    },
    120_000,
  );
});

// A tool loop of two steps (the first file names the second) with the model thinking: the API accepts every
// later call only if the thinking of the loop came back unchanged (Anthropic), or keeps the reasoning only if
// the encrypted reasoning did (OpenAI Responses).
const thinkers: Array<{ model: string; key: string; settings: Pick<AgentInput, 'thinkingBudget' | 'reasoningEffort'> }> = [
  {
    model: process.env.AGENT_LIVE_ANTHROPIC_THINKING_MODEL ?? 'anthropic:claude-sonnet-4-6',
    key: 'ANTHROPIC_API_KEY',
    settings: { thinkingBudget: 1024 },
  },
  {
    model: process.env.AGENT_LIVE_OPENAI_REASONING_MODEL ?? 'openai-responses:o4-mini',
    key: 'OPENAI_API_KEY',
    settings: { reasoningEffort: 'low' },
  },
];

describe.each(thinkers)('live $model, thinking', ({ model, key, settings }) => {
  const enabled = live && Boolean(process.env[key]);
  (enabled ? it : it.skip)(
    'follows a file to the next with thinking on, and keeps the thinking with its payload',
    async () => {
      const { result, messages } = await runLive(
        {
          prompt:
            'Read start.txt with the read_file tool and follow what it says; reply with the word you find at the end, nothing else.',
          model,
          tools: ['read_file'],
          maxIterations: 6,
          ...settings,
        },
        { 'start.txt': 'The word is in next.txt.', 'next.txt': 'marigold' },
      );
      expect(result.status).toBe('completed');
      expect(result.answer.toLowerCase()).toContain('marigold');
      expect(result.iterations).toBeGreaterThanOrEqual(3);
      expect(result.usage.outputTokens).toBeGreaterThan(0);
      const thinking = messages.flatMap((message) =>
        message.role === 'assistant' ? ((message as AssistantMessage).thinking ?? []) : [],
      );
      expect(thinking.length).toBeGreaterThan(0);
      for (const part of thinking) {
        expect(part.provider).toBe(model.split(':')[0]);
        expect(part.type === 'redacted_thinking' ? part.data : part.signature).toEqual(expect.any(String));
      }
    },
    180_000,
  );
});
