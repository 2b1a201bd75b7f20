import { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';
import type { Context } from '@temporalio/activity';
import { classifyProviderError, providerErrorText, withoutSecrets } from '../../activities/model/classify-error';
import { endpointHost, nextRetryDelayMs } from '../../activities/model/retry-notice';
import { retryLine } from '../../cli/event-lines';
import { anthropicProvider } from '../../providers/anthropic/provider';
import { openaiProvider } from '../../providers/openai/provider';
import { openaiResponsesProvider } from '../../providers/openai-responses/provider';
import { defineProvider } from '../../providers/define-provider';

// The parts of a retry notice (activities/model/retry-notice.ts) as plain values: where the call went, what failed,
// how long until the next attempt, and the line a terminal shows.

describe('endpointHost', () => {
  it("is the SDK's default host, or the base URL's host and port alone", () => {
    expect(endpointHost(openaiProvider, {})).toBe('api.openai.com');
    expect(endpointHost(openaiResponsesProvider, {})).toBe('api.openai.com');
    expect(endpointHost(anthropicProvider, {})).toBe('api.anthropic.com');
    const env = {
      OPENAI_BASE_URL: 'http://user:pass@localhost:11434/v1?api-key=secret#x',
      ANTHROPIC_BASE_URL: 'https://proxy.example:8443/anthropic',
    };
    expect(endpointHost(openaiProvider, env)).toBe('localhost:11434');
    expect(endpointHost(anthropicProvider, env)).toBe('proxy.example:8443');
  });

  it('is undefined for a provider that does not say, or a URL that is not one', () => {
    const own = defineProvider({ name: 'own', call: () => Promise.reject(new Error('unused')) });
    expect(endpointHost(own, {})).toBeUndefined();
    expect(endpointHost({ ...own, endpoint: () => 'not a url' }, {})).toBeUndefined();
    expect(
      endpointHost(
        {
          ...own,
          endpoint: () => {
            throw new Error('boom');
          },
        },
        {},
      ),
    ).toBeUndefined();
  });
});

describe('the failure and the notice text', () => {
  it('names the host of a call that reached nobody', () => {
    const error = new OpenAI.APIConnectionError({ message: undefined });
    expect(classifyProviderError(error, 'openai', { host: 'api.openai.com' }).message).toBe(
      'openai call to api.openai.com failed: Connection error.',
    );
    expect(providerErrorText(error)).toBe('Connection error.');
    expect(providerErrorText(new OpenAI.APIError(503, { message: 'overloaded' }, 'overloaded', new Headers()))).toBe(
      'HTTP 503: overloaded',
    );
  });

  it("keeps URLs' credentials and queries and the worker's secret values out", () => {
    const env = { OPENAI_API_KEY: 'sk-live-abcdefgh1234', AGENT_MODEL: 'openai:gpt-4o-mini-long-name' };
    const quoted = 'request to https://u:p@host.example/v1/chat?key=abc123#frag failed; key sk-live-abcdefgh1234 refused';
    const clean = withoutSecrets(quoted, env);
    expect(clean).toBe('request to https://host.example/v1/chat?… failed; key *** refused');
    // Values of variables that are not secrets stay, so messages stay readable.
    expect(withoutSecrets('model openai:gpt-4o-mini-long-name', env)).toBe('model openai:gpt-4o-mini-long-name');
    const failure = classifyProviderError(new Error(quoted), 'openai', { host: 'host.example', env });
    expect(failure.message).not.toContain('abc123');
    expect(failure.message).not.toContain('sk-live');
  });
});

describe('nextRetryDelayMs', () => {
  const info = (attempt: number, retryPolicy?: Context['info']['retryPolicy']) => ({ attempt, retryPolicy }) as Context['info'];
  const policy = { initialInterval: 1_000, backoffCoefficient: 2, maximumInterval: 60_000, maximumAttempts: 10 };
  const retryable = ApplicationFailure.create({ type: 'ProviderUnavailable', message: 'x', nonRetryable: false });

  it("follows the activity's policy, doubling up to its maximum", () => {
    expect([1, 2, 3, 7, 8].map((attempt) => nextRetryDelayMs(retryable, info(attempt, policy)))).toEqual([
      1_000, 2_000, 4_000, 60_000, 60_000,
    ]);
  });

  it("takes the failure's own delay (Retry-After) first", () => {
    const later = ApplicationFailure.create({ message: 'x', nextRetryDelay: 7_500 });
    expect(nextRetryDelayMs(later, info(1, policy))).toBe(7_500);
  });

  it('is undefined when no attempt follows or the policy is unknown', () => {
    expect(nextRetryDelayMs(retryable, info(10, policy))).toBeUndefined();
    expect(nextRetryDelayMs(ApplicationFailure.create({ message: 'x', nonRetryable: true }), info(1, policy))).toBeUndefined();
    expect(nextRetryDelayMs(retryable, info(1, { ...policy, nonRetryableErrorTypes: ['ProviderUnavailable'] }))).toBeUndefined();
    expect(nextRetryDelayMs(retryable, info(1))).toBeUndefined();
  });

  it('assumes the given policy when the info has none (an eagerly started first attempt)', () => {
    expect(nextRetryDelayMs(retryable, info(1), { initialInterval: '1s', backoffCoefficient: 2 })).toBe(1_000);
    expect(nextRetryDelayMs(retryable, info(3), { initialInterval: '1s', maximumAttempts: 3 })).toBeUndefined();
  });
});

describe('retryLine', () => {
  const event = { type: 'model_retry', model: 'openai:gpt-4o-mini', attempt: 2, host: 'api.openai.com' } as const;

  it('says the attempt, the host, the error and the wait', () => {
    expect(retryLine({ ...event, error: 'Connection error.', retryInMs: 4_000 })).toBe(
      'model call failed (attempt 2, api.openai.com: Connection error.); retrying in 4 s',
    );
    expect(retryLine({ ...event, error: 'HTTP 429: slow down', retryInMs: 250 })).toBe(
      'model call failed (attempt 2, api.openai.com: HTTP 429: slow down); retrying in 250 ms',
    );
    expect(retryLine({ ...event, error: 'x' })).toBe('model call failed (attempt 2, api.openai.com: x); retrying');
  });

  it("shows a hostile error's escape sequences as text, not as terminal commands", () => {
    const line = retryLine({ ...event, error: '\u001b[2J\u001b]0;owned\u0007gone', retryInMs: 1_000 });
    expect(line).not.toContain('\u001b');
    expect(line).not.toContain('\u0007');
  });
});
