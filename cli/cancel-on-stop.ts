import { AsyncLocalStorage } from 'node:async_hooks';
import { InterceptingCall, status, type Interceptor } from '@grpc/grpc-js';

const stopSignals = new AsyncLocalStorage<AbortSignal>();

/**
 * Runs `work` so that each gRPC call it makes on a connection with `cancelOnStop` is cancelled when `signal` aborts:
 * a long poll in flight ends at once rather than outlive the command on a connection about to close (after Ctrl-C, a
 * wait still retried on the closed connection threw `Channel has been shut down`, uncaught).
 *
 * The client's own `connection.withAbortSignal` does that too, but adds a listener to the signal for every call and
 * never removes it: a chat's follower makes a call per poll of the run's stream, so it held one more listener (and
 * the call it cancels) per poll, and Node printed `MaxListenersExceededWarning` into the person's terminal within the
 * first turn. Here each call's listener goes when the call ends.
 */
export function cancelledOnStop<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  return stopSignals.run(signal, work);
}

/** The interceptor that gives `cancelledOnStop` its effect; first in a connection's list, so that it wraps retries. */
export const cancelOnStop: Interceptor = (options, nextCall) => {
  const signal = stopSignals.getStore();
  if (!signal) return new InterceptingCall(nextCall(options));
  const call: InterceptingCall = new InterceptingCall(nextCall(options), {
    start(metadata, _listener, next) {
      next(metadata, {
        onReceiveStatus(received, nextStatus) {
          signal.removeEventListener('abort', cancel);
          nextStatus(received);
        },
      });
      if (signal.aborted) cancel();
      else signal.addEventListener('abort', cancel, { once: true });
    },
  });
  function cancel() {
    call.cancelWithStatus(status.CANCELLED, 'the command stopped following');
  }
  return call;
};
