import { isGrpcServiceError, ServiceError } from '@temporalio/client';

const grpcUnavailable = 14;
const retryDelayMs = 2_000;

/**
 * Waits for a run's result across Temporal server restarts. The client gives up
 * on an unreachable server after about 20 s, but the run is durable and goes on:
 * losing the server is no failure of the run, so keep asking.
 */
export async function awaitResult<T>(result: () => Promise<T>, onUnavailable: (error: Error) => void): Promise<T> {
  for (;;) {
    try {
      return await result();
    } catch (error) {
      if (!isServerUnavailable(error)) throw error;
      onUnavailable(error);
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs));
    }
  }
}

export function isServerUnavailable(error: unknown): error is ServiceError {
  return error instanceof ServiceError && isGrpcServiceError(error.cause) && error.cause.code === grpcUnavailable;
}
