import type OpenAI from 'openai';
import { loadOnce } from '../../core/load-once';
import { ClientCache } from '../client-cache';
import type { ProviderCall } from '../provider-call';

/**
 * The OpenAI client both OpenAI providers use: OPENAI_BASE_URL honoured (a
 * compatible server needs no key), and the SDK's own retries off, since
 * Temporal retries the activity.
 */
export async function openaiClient(call: Pick<ProviderCall, 'env' | 'timeoutMs'>): Promise<OpenAI> {
  const { default: OpenAI } = await loadOpenAI();
  const settings = {
    apiKey: call.env.OPENAI_API_KEY ?? (call.env.OPENAI_BASE_URL ? 'not-needed' : undefined),
    baseURL: call.env.OPENAI_BASE_URL || undefined,
    timeout: call.timeoutMs,
  };
  return clients.get(settings, () => new OpenAI({ ...settings, maxRetries: 0 }));
}

const clients = new ClientCache<OpenAI>();

/**
 * The SDK, loaded on first use (~150 ms): a CLI loads it while its worker starts (ModelProvider.preload),
 * not before, and one whose runs use another provider never does.
 */
export const loadOpenAI = loadOnce(() => import('openai'));

/** Where both OpenAI providers' calls go: OPENAI_BASE_URL, else the SDK's default. */
export function openaiEndpoint(env: NodeJS.ProcessEnv): string {
  return env.OPENAI_BASE_URL || 'https://api.openai.com/v1';
}

/** What both OpenAI providers need of the worker's environment. */
export function checkOpenAIEnvironment(env: NodeJS.ProcessEnv): string | undefined {
  return !env.OPENAI_API_KEY && !env.OPENAI_BASE_URL
    ? 'OPENAI_API_KEY is not set in the worker environment (or set OPENAI_BASE_URL for a local server)'
    : undefined;
}
