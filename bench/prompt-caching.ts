import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sendMessage } from '../client/send-message';
import { startAgent } from '../client/start-agent';
import type { PromptCacheSetting } from '../core/agent-spec';
import { formatUsd, priceOf, priced } from '../core/cost';
import { addUsage, zeroUsage, type Usage } from '../core/usage';
import { loadPrices } from '../pricing/load-prices';
import { providerReply, type FakeProvider, type Responder } from '../test/support/fake-model-server';
import { fakeInputTokens } from '../test/support/wire-rules/prompt-cache';
import type { Benchmark } from './support/benchmark';
import { startFakeModelWorker } from './support/fake-model-worker';
import { formatCount, markdownTable, type TargetRow } from './support/format';
import { log } from './support/log';

const turns = { full: 50, quick: 10 };
// Anthropic-style pricing (cache reads 0.1x, 5-minute writes 1.25x the input price) is what the target is for.
const anthropicTarget = 0.3;

const models: Record<FakeProvider, string> = {
  anthropic: 'anthropic:claude-sonnet-4-6',
  openai: 'openai:gpt-5-mini',
  'openai-responses': 'openai-responses:gpt-5-mini',
};

// An agent's instructions (about 2,000 tokens as the fake counts them) and a file its tool reads each turn (about 750).
const systemPrompt = `You maintain the project's notes. ${'Answer from the notes, cite the line, say when the notes do not say. '.repeat(115)}`;
const notes = Array.from({ length: 100 }, (_, line) => `note ${line}: the value of setting ${line} is ${line * 7}`).join('\n');

/**
 * The billed input cost of a long session with prompt caching on (the engine's default) and off, per provider, side
 * by side in one run: a session of 50 messages, each answered after one tool call (read_file), through the real
 * model activity and SDK clients against the local fake server, which models each provider's prompt cache
 * (test/support/wire-rules/prompt-cache.ts: a token per four characters) and reports the input as the API would.
 * Costs are the run's own, priced by the worker at the shipped prices; only the input part is compared (the output
 * is the same either way).
 */
export const promptCaching: Benchmark = {
  name: 'prompt-caching',
  title: 'Billed input cost of a long session, prompt caching on vs off',
  async run({ environment, quick }) {
    const count = quick ? turns.quick : turns.full;
    const workspace = await environment.temporaryDirectory('bench-cache-');
    await writeFile(path.join(workspace, 'notes.txt'), notes);
    const { fake, taskQueue } = await startFakeModelWorker(environment, { name: 'cache', workspace: workspace });
    const prices = loadPrices({});

    // Every message: first a read_file call, then an answer; the input each reply reports is the fake's own count.
    const responder: Responder = (request, index) => {
      const provider: FakeProvider = request.path.includes('/messages')
        ? 'anthropic'
        : request.path.includes('/responses')
          ? 'openai-responses'
          : 'openai';
      const inputTokens = fakeInputTokens(request.path, request.body);
      return index % 2 === 0
        ? providerReply(provider, {
            toolCalls: [{ id: `read_${index}`, name: 'read_file', arguments: { path: 'notes.txt' } }],
            inputTokens,
          })
        : providerReply(provider, {
            text: `From the notes: answer ${index}. ${'The notes say so on the line cited. '.repeat(8)}`,
            inputTokens,
          });
    };

    async function session(provider: FakeProvider, promptCache: PromptCacheSetting | undefined): Promise<Usage> {
      fake.reset();
      fake.respondWith(responder);
      const handle = await startAgent(
        environment.client,
        {
          model: models[provider],
          systemPrompt,
          tools: ['read_file'],
          workspace,
          session: { idleTimeoutSeconds: 600 },
          ...(promptCache && { modelSettings: { promptCache } }),
        },
        { taskQueue },
      );
      let usage = zeroUsage;
      try {
        for (let turn = 1; turn <= count; turn++) {
          const reply = await sendMessage(handle, `Message ${turn}: what is the value of setting ${turn}?`);
          usage = addUsage(usage, reply.usage);
        }
      } finally {
        await handle.terminate('benchmark over');
      }
      if (fake.refusals.length > 0) throw new Error(`the fake server refused: ${fake.refusals[0].refusal}`);
      return usage;
    }

    const rows: string[][] = [];
    const targets: TargetRow[] = [];
    try {
      for (const provider of Object.keys(models) as FakeProvider[]) {
        const price = priceOf(prices, models[provider])!;
        const inputCost = (usage: Usage) => priced({ ...usage, outputTokens: 0, reasoningTokens: undefined }, price).costUsd!;
        log(`prompt-caching: ${provider}, caching off...`);
        const off = await session(provider, 'off');
        log(`prompt-caching: ${provider}, caching on...`);
        const on = await session(provider, undefined);
        const ratio = inputCost(on) / inputCost(off);
        rows.push([
          models[provider],
          formatCount(off.inputTokens),
          formatUsd(inputCost(off)),
          formatCount(on.cacheReadTokens ?? 0),
          formatCount(on.cacheWriteTokens ?? 0),
          formatUsd(inputCost(on)),
          `${ratio.toFixed(2)}x`,
        ]);
        if (provider === 'anthropic') {
          targets.push({
            measure: `billed input cost of a ${count}-message session, caching on vs off (Anthropic pricing)`,
            result: `${ratio.toFixed(2)}x (${formatUsd(inputCost(on))} vs ${formatUsd(inputCost(off))})`,
            target: `≤ ${anthropicTarget}x`,
            pass: ratio <= anthropicTarget,
          });
        }
      }
    } finally {
      await fake.close();
    }
    return {
      details: [
        `A session of ${count} messages, each answered after one read_file call (${count * 2} model calls), ` +
          'through the real model activity and SDK clients against the local fake server, which models each ' +
          "provider's prompt cache (a token per four characters). Input cost at the shipped prices; output left out " +
          '(the same either way). Caching off: Anthropic gets no breakpoints, OpenAI no prompt_cache_key (the fake ' +
          'then reports nothing cached, the pessimistic case of OpenAI routing by prefix alone).',
        markdownTable(
          [
            'model',
            'input tokens',
            'input cost, off',
            'read from cache, on',
            'written to cache, on',
            'input cost, on',
            'on / off',
          ],
          rows,
        ),
      ],
      targets,
    };
  },
};
