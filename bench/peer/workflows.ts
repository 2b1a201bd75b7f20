import { temporalProvider } from '@temporalio/ai-sdk/workflow';
import { proxyActivities } from '@temporalio/workflow';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import type { PeerActivities } from './activities';

const { benchText } = proxyActivities<PeerActivities>({ startToCloseTimeout: '1 minute' });

export interface PeerAgentInput {
  /** The model id the AI SDK provider gets (the scripted model reads its script from it). */
  model: string;
  prompt: string;
  /** Model calls at most: the tool turns plus the final answer. */
  maxSteps: number;
}

/**
 * The peer: an agent built the way @temporalio/ai-sdk's documentation builds
 * one. The AI SDK's own tool loop (generateText with tools and a step limit)
 * runs in the workflow; each model call is the plugin's model activity, which
 * gets the whole conversation so far, and the tool is an activity passed as the
 * tool's `execute`.
 */
export async function peerAgent(input: PeerAgentInput): Promise<string> {
  const result = await generateText({
    model: temporalProvider.languageModel(input.model),
    system: 'You are a helpful agent.',
    prompt: input.prompt,
    tools: {
      bench_text: tool({
        description: 'Benchmark tool: returns about 2 KB of text for the given turn.',
        inputSchema: z.object({ turn: z.number().int() }),
        execute: benchText,
      }),
    },
    stopWhen: stepCountIs(input.maxSteps),
  });
  return result.text;
}
