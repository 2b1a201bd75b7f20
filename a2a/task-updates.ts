import type { Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import type { Client } from '@temporalio/client';
import { followStream } from '../client/follow-stream';
import type { AgentEvent } from '../core/stream-events';
import { approvalMetaKey, runTask, terminalStates } from './run-task';

/** The events after which a task's state may have changed: a call waits, a call was decided, a turn ended. */
const changes: ReadonlySet<AgentEvent['type']> = new Set(['approval_requested', 'approval_decided', 'turn_end']);

/**
 * The task's states as they change, read from Temporal each time the run's stream says one may have (runTask): the
 * stream only wakes the reader, so a state is never derived from events this process happened to see, and a
 * reconnect reads the same task. Ends after a terminal state, or (with `untilInterrupted`) after input-required too,
 * where a client's stream ends and its answer comes by a new request. `after` is the state the caller has already
 * told, not told again.
 */
export async function* taskUpdates(
  client: Client,
  taskId: string,
  options: { signal: AbortSignal; after?: Task; untilInterrupted: boolean },
): AsyncGenerator<Task> {
  const wake = new Wakeup();
  let closed = false;
  const following = new AbortController();
  const stop = () => following.abort();
  options.signal.addEventListener('abort', stop, { once: true });
  const followed = followStream<AgentEvent>(client, taskId, {
    // The stream holds recent events only; reading them again only wakes the reader a few times.
    from: 0,
    signal: following.signal,
    onEvent: ({ data }) => {
      if (changes.has(data.type)) wake.ring();
    },
  })
    .catch(() => undefined)
    .finally(() => {
      closed = true;
      wake.ring();
    });
  let told = stateKey(options.after);
  try {
    for (let readsAfterClose = 0; !options.signal.aborted;) {
      const task = await runTask(client, taskId);
      const key = stateKey(task);
      if (key !== told) {
        told = key;
        yield task;
      }
      const state = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
      if (terminalStates.has(state)) return;
      if (options.untilInterrupted && state === TaskState.TASK_STATE_INPUT_REQUIRED) return;
      // The stream ends with the run, so the next read finds it closed; a few reads more, and no bell rings again.
      if (closed) {
        if (++readsAfterClose > 3) return;
        continue;
      }
      await wake.wait(options.signal);
    }
  } finally {
    options.signal.removeEventListener('abort', stop);
    // Not waited for: a poll open on a run that waits (for a person) ends at its next event, and this reader is done.
    following.abort();
    void followed;
  }
}

/** A state as a client tells it apart: the state, and which call waits (a second approval is a new question). */
function stateKey(task: Task | undefined): string | undefined {
  if (!task) return undefined;
  return `${task.status?.state}:${String(task.status?.message?.metadata?.[approvalMetaKey] ?? '')}`;
}

/** A bell rung by events and waited on by one reader: a ring while nobody waits is kept, so none is missed. */
class Wakeup {
  private rung = false;
  private waiter?: () => void;

  ring(): void {
    this.rung = true;
    this.waiter?.();
  }

  async wait(signal: AbortSignal): Promise<void> {
    if (!this.rung) {
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          this.waiter = undefined;
          resolve();
        };
        this.waiter = done;
        signal.addEventListener('abort', done, { once: true });
      });
    }
    this.rung = false;
  }
}
