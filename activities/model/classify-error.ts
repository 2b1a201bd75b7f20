import { ApplicationFailure } from '@temporalio/common';
import { ConfigurationError, failureTypes } from '../../core/errors';

/** The parts of an OpenAI or Anthropic SDK error that classification needs; both SDKs share this shape. */
interface ProviderErrorShape {
  status?: number;
  headers?: Headers | Record<string, string | null | undefined>;
  message?: string;
  /** The parsed error body: OpenAI's `{message}` or Anthropic's `{type, error: {message}}`. */
  error?: { message?: unknown; error?: { message?: unknown } };
}

const retryableStatuses = new Set([408, 409, 429]);

/**
 * Turns anything a provider call threw into an ApplicationFailure, once, at the
 * model boundary: 408/409/429/5xx and connection failures are retried by Temporal
 * (Retry-After honoured through nextRetryDelay); other 4xx fail at once and keep
 * the provider's message; configuration errors are never retried.
 */
export function classifyProviderError(error: unknown, provider: string): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  if (error instanceof ConfigurationError) {
    return ApplicationFailure.create({ type: failureTypes.configuration, message: error.message, nonRetryable: true });
  }
  const shape = (typeof error === 'object' && error !== null ? error : {}) as ProviderErrorShape;
  const message = providerMessage(shape) ?? String(error);
  const status = typeof shape.status === 'number' ? shape.status : undefined;
  if (status !== undefined && status >= 400 && status < 500 && !retryableStatuses.has(status)) {
    return ApplicationFailure.create({
      type: failureTypes.providerRejected,
      message: `${provider} rejected the request (HTTP ${status}): ${message}`,
      nonRetryable: true,
      details: [{ provider, status }],
    });
  }
  const retryAfterMs = status !== undefined ? retryAfterMillis(shape.headers) : undefined;
  return ApplicationFailure.create({
    type: failureTypes.providerUnavailable,
    message: status !== undefined ? `${provider} returned HTTP ${status}: ${message}` : `${provider} call failed: ${message}`,
    nonRetryable: false,
    ...(retryAfterMs !== undefined && { nextRetryDelay: retryAfterMs }),
    details: [{ provider, status: status ?? null }],
  });
}

/** Reads `retry-after-ms` (OpenAI) or `retry-after` (seconds or an HTTP date) into milliseconds. */
export function retryAfterMillis(headers: ProviderErrorShape['headers'], now = Date.now()): number | undefined {
  const milliseconds = Number.parseFloat(header(headers, 'retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.ceil(milliseconds);
  const value = header(headers, 'retry-after');
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function header(headers: ProviderErrorShape['headers'], name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | null | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  return key ? (record[key] ?? undefined) : undefined;
}

/** The provider's own words, without the SDK's status prefix and JSON dump when the body has a message. */
function providerMessage(shape: ProviderErrorShape): string | undefined {
  const fromBody = shape.error?.error?.message ?? shape.error?.message;
  return typeof fromBody === 'string' && fromBody ? fromBody : shape.message;
}
