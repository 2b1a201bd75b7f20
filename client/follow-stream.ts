import { ApplicationFailure, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { WorkflowStreamClient, type WorkflowStreamItem } from '@temporalio/workflow-streams/client';
import { agentStreamTopic, type StreamEvent } from '../core/stream-events';
import { streamBusyType } from '../workflows/agent-stream';
import { streamTailQuery } from '../workflows/definitions';
import { untraced } from '../telemetry/tracing';
import { isServerUnavailable } from './await-result';

const busyRetryMs = 2_000;
const defaultCatchUpTimeoutMs = 5_000;
const lostServerRetryMs = 2_000;
const pollTimeoutRetryMs = 1_000;
/**
 * The pause between one poll's answer and the next poll, by default: what arrives meanwhile comes in the next answer.
 * Every poll is an Update in the run's history, so a follower polls at most this often; a run's last events, which no
 * poll may be waiting for when it ends, are read once afterwards (catchUp), so a pause loses nothing. The model
 * activity publishes text every 200 ms at most, so text still flows as it is written.
 */
export const defaultPollCooldownMs = 200;

/**
 * `Event`: what the followed workflow publishes, as its caller knows it (AgentEvent for an agent run, EvalEvent for an
 * eval); StreamEvent for a follower that takes any id (`agent watch`). A run of a newer build may send a type the
 * union lacks: every renderer's switch has a default for it.
 */
export interface FollowOptions<Event extends StreamEvent = StreamEvent> {
  /** The first offset wanted (0: from the oldest event the run still keeps). */
  from: number;
  onEvent(item: WorkflowStreamItem<Event>): void;
  /** Told when following pauses (the server went away, too many watchers) and resumes by itself. */
  onPause?(reason: string): void;
  signal?: AbortSignal;
  /** The pause between polls (default `defaultPollCooldownMs`): longer for a follower that shows no text as it is written. */
  pollCooldownMs?: number;
  /**
   * How long the read of a closed run's last events may take (default 5 s): a query, which waits for a worker. A
   * follower that holds its answer back for those events (agent mcp's progress) gives it as long as it waits.
   */
  catchUpTimeoutMs?: number;
}

/**
 * Follows a run's stream by workflow id, across continue-as-new, until the run
 * ends (or `signal` aborts). Each event is delivered once, in order: if the
 * server goes away or the run turns the subscriber away for a moment (too many
 * watchers), it subscribes again from the offset after the last event delivered.
 */
export function followStream<Event extends StreamEvent = StreamEvent>(
  client: Client,
  workflowId: string,
  options: FollowOptions<Event>,
): Promise<void> {
  return untraced(() => follow(client, workflowId, options));
}

async function follow<Event extends StreamEvent>(
  client: Client,
  workflowId: string,
  options: FollowOptions<Event>,
): Promise<void> {
  let next = options.from;
  while (!options.signal?.aborted) {
    const stream = WorkflowStreamClient.create(client, workflowId).topic<Event>(agentStreamTopic);
    try {
      for await (const item of stream.subscribe(next, { pollCooldown: options.pollCooldownMs ?? defaultPollCooldownMs })) {
        if (options.signal?.aborted) return;
        if (item.offset < next) continue;
        next = item.offset + 1;
        options.onEvent(item);
        // Leaving now, while the subscription waits at this item, asks the run nothing more; the next turn round would
        // send one more poll, which stays open on the run until its next event (a web response that ended at turn_end).
        if (options.signal?.aborted) return;
      }
      // The package's subscription also ends, as if the run had, when one poll's Update times out at the server (a
      // busy server: "context deadline exceeded"): only a closed run ends the following; a running one is followed
      // again from the next offset. (The web bench's 8 of 200 chats that ended mid-turn while the dev server timed out
      // Updates fit this path.)
      if (await isStillRunning(client, workflowId)) {
        options.onPause?.(`a poll of the run's stream timed out; following again from offset ${next}`);
        await new Promise((resolve) => setTimeout(resolve, pollTimeoutRetryMs));
        continue;
      }
      await catchUp(client, workflowId, next, options);
      return;
    } catch (error) {
      if (options.signal?.aborted) return;
      const wait = pauseFor(error);
      if (wait === undefined) throw error;
      options.onPause?.(`${wait.reason}; following again from offset ${next}`);
      await new Promise((resolve) => setTimeout(resolve, wait.ms));
    }
  }
}

/**
 * After the run ended: the events it published after the last poll answered, which no poll could take (a run's last
 * events reach only a poll waiting at that moment). Read once with the streamTail query, which a closed run answers.
 * A worker that predates the query, or none answering, leaves the tail untold; the caller has the run's result.
 */
async function catchUp<Event extends StreamEvent>(
  client: Client,
  workflowId: string,
  from: number,
  options: FollowOptions<Event>,
): Promise<void> {
  const handle = client.workflow.getHandle(workflowId);
  let next = from;
  for (;;) {
    // Bounded: a query waits for a worker, and the run's may have just gone away with it (the result says the rest).
    const tail = await client.connection
      .withDeadline(Date.now() + (options.catchUpTimeoutMs ?? defaultCatchUpTimeoutMs), () => handle.query(streamTailQuery, next))
      .catch(() => undefined);
    if (!tail || options.signal?.aborted) return;
    for (const { offset, event } of tail.events) {
      if (offset < next) continue;
      // The query's answer is typed for any stream; this one's caller named what its workflow publishes.
      options.onEvent({ topic: agentStreamTopic, offset, data: event as Event });
    }
    // An answer stops at the end of the log or at its size limit; only then is there more to ask for.
    if (!tail.more || tail.next <= next) return;
    next = tail.next;
  }
}

/**
 * Whether the latest run of `workflowId` is still open (a describe, once per ended subscription). The raw call: the
 * client's describe() decodes the run's memo, which a session seals with the codec.
 */
async function isStillRunning(client: Client, workflowId: string): Promise<boolean> {
  const { workflowExecutionInfo } = await client.workflowService.describeWorkflowExecution({
    namespace: client.options.namespace,
    execution: { workflowId },
  });
  return workflowExecutionInfo?.status === temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
}

function pauseFor(error: unknown): { reason: string; ms: number } | undefined {
  if (
    error instanceof WorkflowUpdateFailedError &&
    error.cause instanceof ApplicationFailure &&
    error.cause.type === streamBusyType
  ) {
    return { reason: error.cause.message, ms: busyRetryMs };
  }
  if (isServerUnavailable(error))
    return { reason: `lost the Temporal server (${(error as Error).message})`, ms: lostServerRetryMs };
  return undefined;
}
