import { defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type ConnectionOptions } from '@temporalio/client';

const resourceExhausted = 8; // gRPC status code

/**
 * The client's usual gRPC retries, except for Temporal's limit of 10 updates in
 * flight per workflow: retried, it would hold `agent send` silently for about
 * half a minute before failing anyway, so the CLI reports it at once instead.
 * Nor once the command closes its connection (`closing`): the SDK retries from a
 * timer, and a retry started on a closed channel throws `Channel has been shut
 * down` there, uncaught (after Ctrl-C in `agent run`, it followed the hint).
 */
export function cliRetryInterceptors(closing: () => boolean = () => false): NonNullable<ConnectionOptions['interceptors']> {
  const retry = defaultGrpcRetryOptions();
  return [
    makeGrpcRetryInterceptor({
      ...retry,
      retryableDecider: (attempt, status) =>
        !closing() &&
        !(status.code === resourceExhausted && /in-flight updates/i.test(status.details)) &&
        retry.retryableDecider(attempt, status),
    }),
  ];
}
