import type { FakeStep, ReceivedRequest } from '../fake-model-server';

/**
 * A provider's requests-per-second limit, as the real APIs enforce one per account: a request beyond it gets
 * HTTP 429 with the API's own error body and rate-limit headers (OpenAI's `x-ratelimit-*` and `code:
 * rate_limit_exceeded`; Anthropic's `anthropic-ratelimit-requests-*` and `rate_limit_error`), and `retry-after`
 * in whole seconds, as both send it. The window is the last second, sliding: at most `requestsPerSecond`
 * requests are let through in any 1,000 ms.
 */
export class RequestRateLimit {
  /** When each request let through arrived, the last second's. */
  private readonly admitted: number[] = [];
  /** Requests refused with 429. */
  refused = 0;

  constructor(
    readonly requestsPerSecond: number,
    /** The requests this limit counts (default: every model request). */
    private readonly applies: (request: ReceivedRequest) => boolean = () => true,
  ) {
    if (!(requestsPerSecond > 0)) throw new Error(`requestsPerSecond must be above 0, got ${requestsPerSecond}`);
  }

  /** The 429 for a request over the limit; undefined (and the request counted) when it may go through. */
  refuse(request: ReceivedRequest): FakeStep | undefined {
    if (!this.applies(request)) return undefined;
    const now = request.receivedAt;
    while (this.admitted.length > 0 && now - this.admitted[0] >= 1000) this.admitted.shift();
    if (this.admitted.length < this.requestsPerSecond) {
      this.admitted.push(now);
      return undefined;
    }
    this.refused++;
    const resetMs = Math.max(1, 1000 - (now - this.admitted[0]));
    return request.path.includes('/messages') ? this.anthropic429(resetMs, now) : this.openai429(resetMs);
  }

  private openai429(resetMs: number): FakeStep {
    return {
      status: 429,
      headers: {
        'retry-after': String(Math.ceil(resetMs / 1000)),
        'x-ratelimit-limit-requests': String(this.requestsPerSecond),
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': `${resetMs}ms`,
      },
      json: {
        error: {
          message: `Rate limit reached for requests: Limit ${this.requestsPerSecond} / 1s, Used ${this.requestsPerSecond}, Requested 1. Please try again in ${resetMs}ms.`,
          type: 'requests',
          param: null,
          code: 'rate_limit_exceeded',
        },
      },
    };
  }

  private anthropic429(resetMs: number, now: number): FakeStep {
    return {
      status: 429,
      headers: {
        'retry-after': String(Math.ceil(resetMs / 1000)),
        'anthropic-ratelimit-requests-limit': String(this.requestsPerSecond),
        'anthropic-ratelimit-requests-remaining': '0',
        'anthropic-ratelimit-requests-reset': new Date(now + resetMs).toISOString(),
      },
      json: {
        type: 'error',
        error: {
          type: 'rate_limit_error',
          message: `Number of requests has exceeded your rate limit of ${this.requestsPerSecond} per second.`,
        },
      },
    };
  }
}
