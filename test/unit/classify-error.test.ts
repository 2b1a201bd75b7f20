import Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';
import { ConfigurationError } from '../../core/errors';
import { classifyProviderError, retryAfterMillis } from '../../activities/model/classify-error';

function openAIError(status: number, message: string, headers: Headers = new Headers()) {
  return new OpenAI.APIError(status, { message }, message, headers);
}

describe('classifyProviderError', () => {
  it.each([408, 409, 429, 500, 503])('retries HTTP %i as ProviderUnavailable', (status) => {
    const failure = classifyProviderError(openAIError(status, 'try later'), 'openai');
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe('ProviderUnavailable');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe(`openai returned HTTP ${status}: try later`);
    expect(failure.details).toEqual([{ provider: 'openai', status }]);
    expect(failure.nextRetryDelay).toBeUndefined();
  });

  it.each([400, 401, 403, 404, 422])('fails HTTP %i at once as ProviderRejectedRequest, keeping the message', (status) => {
    const failure = classifyProviderError(openAIError(status, 'model "gpt-9" does not exist'), 'openai');
    expect(failure.type).toBe('ProviderRejectedRequest');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe(`openai rejected the request (HTTP ${status}): model "gpt-9" does not exist`);
    expect(failure.details).toEqual([{ provider: 'openai', status }]);
  });

  it("keeps the message from Anthropic's nested error body", () => {
    const body = { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: must be positive' } };
    const failure = classifyProviderError(new Anthropic.APIError(400, body, undefined, new Headers()), 'anthropic');
    expect(failure.type).toBe('ProviderRejectedRequest');
    expect(failure.message).toBe('anthropic rejected the request (HTTP 400): max_tokens: must be positive');
  });

  it('retries an OpenAI connection error', () => {
    const failure = classifyProviderError(new OpenAI.APIConnectionError({ message: 'socket hang up' }), 'openai');
    expect(failure.type).toBe('ProviderUnavailable');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe('openai call failed: socket hang up');
    expect(failure.details).toEqual([{ provider: 'openai', status: null }]);
  });

  it('retries an Anthropic connection error', () => {
    const failure = classifyProviderError(new Anthropic.APIConnectionError({ message: undefined }), 'anthropic');
    expect(failure.type).toBe('ProviderUnavailable');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe('anthropic call failed: Connection error.');
  });

  it('turns Retry-After seconds into nextRetryDelay in milliseconds', () => {
    const failure = classifyProviderError(
      new OpenAI.APIError(429, { message: 'slow down' }, 'slow down', new Headers({ 'retry-after': '2' })),
      'openai',
    );
    expect(failure.nextRetryDelay).toBe(2000);
  });

  it('prefers retry-after-ms over retry-after', () => {
    const headers = new Headers({ 'retry-after-ms': '1500.2', 'retry-after': '9' });
    expect(classifyProviderError(openAIError(503, 'busy', headers), 'openai').nextRetryDelay).toBe(1501);
  });

  it('reads Retry-After from an Anthropic error', () => {
    const body = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
    const failure = classifyProviderError(
      new Anthropic.APIError(529, body, undefined, new Headers({ 'retry-after': '7' })),
      'anthropic',
    );
    expect(failure.type).toBe('ProviderUnavailable');
    expect(failure.message).toBe('anthropic returned HTTP 529: Overloaded');
    expect(failure.nextRetryDelay).toBe(7000);
  });

  it('reads Retry-After from a plain header record, case-insensitively', () => {
    const failure = classifyProviderError({ status: 429, message: 'slow', headers: { 'Retry-After': '3' } }, 'openai');
    expect(failure.nextRetryDelay).toBe(3000);
  });

  it('turns a ConfigurationError into a non-retryable AgentConfigurationError', () => {
    const failure = classifyProviderError(new ConfigurationError('OPENAI_API_KEY is not set'), 'openai');
    expect(failure.type).toBe('AgentConfigurationError');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe('OPENAI_API_KEY is not set');
  });

  it('returns an ApplicationFailure unchanged', () => {
    const original = ApplicationFailure.create({ type: 'Custom', message: 'already classified', nonRetryable: true });
    expect(classifyProviderError(original, 'openai')).toBe(original);
  });

  it('retries a thrown non-error value with its text', () => {
    const failure = classifyProviderError('boom', 'anthropic');
    expect(failure.type).toBe('ProviderUnavailable');
    expect(failure.message).toBe('anthropic call failed: boom');
  });
});

describe('retryAfterMillis', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it('reads seconds', () => {
    expect(retryAfterMillis(new Headers({ 'retry-after': '1.5' }), now)).toBe(1500);
  });

  it('reads an HTTP date relative to now', () => {
    expect(retryAfterMillis(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }), now)).toBe(30_000);
  });

  it('never returns a negative delay for a date in the past', () => {
    expect(retryAfterMillis({ 'retry-after': 'Tue, 31 Dec 2024 23:59:00 GMT' }, now)).toBe(0);
  });

  it('reads retry-after-ms from a Headers object and a plain record', () => {
    expect(retryAfterMillis(new Headers({ 'retry-after-ms': '250' }), now)).toBe(250);
    expect(retryAfterMillis({ 'retry-after-ms': '250' }, now)).toBe(250);
  });

  it('returns undefined for missing or unreadable headers', () => {
    expect(retryAfterMillis(undefined, now)).toBeUndefined();
    expect(retryAfterMillis(new Headers(), now)).toBeUndefined();
    expect(retryAfterMillis({ 'retry-after': null }, now)).toBeUndefined();
    expect(retryAfterMillis({ 'retry-after': 'soon' }, now)).toBeUndefined();
  });
});
