import { ApplicationFailure } from '@temporalio/common';
import { AttachmentNotAcceptedError, ConfigurationError, failureTypes } from '../../core/errors';
import { AttachmentMissingError } from '../../storage/attachment-store';

/** The parts of an OpenAI or Anthropic SDK error that classification needs; both SDKs share this shape. */
interface ProviderErrorShape {
  status?: number;
  headers?: Headers | Record<string, string | null | undefined>;
  message?: string;
  /** The parsed error body: OpenAI's `{message}` or Anthropic's `{type, error: {message}}`. */
  error?: { message?: unknown; error?: { message?: unknown } };
  /** The AI SDK's APICallError (any `@ai-sdk/*` package): its status, its headers, and whether the package would retry it. */
  statusCode?: number;
  responseHeaders?: Record<string, string>;
  isRetryable?: boolean;
}

const retryableStatuses = new Set([408, 409, 429]);

/** Where a call went (its endpoint's host, endpointHost) and the worker's environment, whose secrets no message shows. */
export interface Endpoint {
  host?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Turns anything a provider call threw into an ApplicationFailure, once, at the
 * model boundary: 408/409/429/5xx and connection failures are retried by Temporal
 * (Retry-After honoured through nextRetryDelay); other 4xx fail at once and keep
 * the provider's message; configuration errors are never retried.
 */
export function classifyProviderError(error: unknown, provider: string, where: Endpoint = {}): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  if (error instanceof AttachmentNotAcceptedError) {
    return ApplicationFailure.create({ type: failureTypes.attachmentNotAccepted, message: error.message, nonRetryable: true });
  }
  if (error instanceof ConfigurationError || error instanceof AttachmentMissingError) {
    return ApplicationFailure.create({ type: failureTypes.configuration, message: error.message, nonRetryable: true });
  }
  const shape = errorShape(error);
  const message = withoutSecrets(providerMessage(shape) ?? String(error), where.env);
  const status = typeof shape.status === 'number' ? shape.status : undefined;
  // An AI SDK package says itself whether its error is worth retrying (by status, or its API's own rule): a 4xx it
  // would retry is retried, any other 4xx is not. Only a 4xx is a rejection: a 200 whose body broke off (the AI SDK's
  // "Failed to process successful response") is retried like a dropped connection, whatever the package says.
  const rejected =
    status !== undefined &&
    status >= 400 &&
    status < 500 &&
    (typeof shape.isRetryable === 'boolean' ? !shape.isRetryable : !retryableStatuses.has(status));
  if (rejected) {
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
    // A call that reached nobody names where it went: a forgotten OPENAI_BASE_URL shows as api.openai.com.
    message:
      status !== undefined
        ? `${provider} returned HTTP ${status}: ${message}`
        : `${provider} call${where.host ? ` to ${where.host}` : ''} failed: ${message}`,
    nonRetryable: false,
    ...(retryAfterMs !== undefined && { nextRetryDelay: retryAfterMs }),
    details: [{ provider, status: status ?? null }],
  });
}

/** The error as classification reads it: an AI SDK APICallError's statusCode and responseHeaders as status and headers. */
function errorShape(error: unknown): ProviderErrorShape {
  const shape = (typeof error === 'object' && error !== null ? error : {}) as ProviderErrorShape;
  if (shape.status !== undefined || typeof shape.statusCode !== 'number') return shape;
  return { ...shape, message: shape.message, status: shape.statusCode, headers: shape.responseHeaders };
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

/** The provider's error in a few words, for the retry notice: `HTTP 503: overloaded`, `Connection error.` */
export function providerErrorText(error: unknown, env?: NodeJS.ProcessEnv): string {
  if (error instanceof ApplicationFailure) return withoutSecrets(error.message, env);
  const shape = errorShape(error);
  const message = withoutSecrets(providerMessage(shape) ?? String(error), env);
  return typeof shape.status === 'number' ? `HTTP ${shape.status}: ${message}` : message;
}

/** Environment variables whose values are secrets (OPENAI_API_KEY, AGENT_ENCRYPTION_KEYS, a proxy's token). */
const secretName = /(KEY|KEYS|TOKEN|SECRET|PASSWORD)$/;
/** Shorter values are not secrets, and replacing every "on" would make messages unreadable. */
const minSecretLength = 8;

/**
 * A provider's error with what must stay out of history taken out: every URL's userinfo, query and fragment (an SDK
 * or a proxy may quote the URL it called, and a key may ride in its query), and the values of the worker's secret
 * environment variables wherever they appear.
 */
export function withoutSecrets(text: string, env: NodeJS.ProcessEnv = {}): string {
  const urlsCut = text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>()]+/gi, (found) => {
    try {
      const url = new URL(found);
      if (!url.username && !url.password && !url.search && !url.hash) return found;
      url.username = '';
      url.password = '';
      url.search = '';
      url.hash = '';
      return `${url.toString()}${found.includes('?') ? '?…' : ''}`;
    } catch {
      return found;
    }
  });
  const secrets = Object.entries(env)
    .filter(([name, value]) => secretName.test(name) && value !== undefined && value.length >= minSecretLength)
    .map(([, value]) => value!)
    .sort((a, b) => b.length - a.length);
  return secrets.reduce((current, secret) => current.split(secret).join('***'), urlsCut);
}
