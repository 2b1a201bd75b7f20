import { performance } from 'node:perf_hooks';
import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { startAgent } from '../../client/start-agent';
import { sendMessageUpdate } from '../../workflows/definitions';
import { floorMessageUpdate, type floorSession } from '../floor/session-workflow';

export interface ChatLoadOptions {
  client: Client;
  taskQueue: string;
  workspace: string;
  /** `openai:<name>` of the scripted model the worker calls. */
  model: string;
  sessions: number;
  messagesPerSession: number;
  /** Each message is sent after a pause drawn uniformly from this range (ms), the first one too, so arrivals spread out. */
  pauseMs: [number, number];
  /** Start requests in flight at once. */
  startConcurrency: number;
  idPrefix: string;
  /** Temporal's floor session (bench/floor/session-workflow.ts) instead of the agent's. */
  floor?: boolean;
}

/** One message of the load: its update id, when it was sent and when its reply came (epoch ms). */
export interface SentMessage {
  workflowId: string;
  updateId: string;
  sentAt: number;
  repliedAt: number;
}

export interface ChatLoadResult {
  /** Per message answered: from sending the update to its reply, in ms. */
  replyMs: number[];
  messages: SentMessage[];
  failures: string[];
  handles: WorkflowHandleWithFirstExecutionRunId[];
  /** From the first message sent to the last reply. */
  windowMs: number;
  startingMs: number;
}

/**
 * Starts N chat sessions and waits until every one is ready for messages: its
 * first workflow task and prepareRun are done and it waits on its idle timer.
 */
export async function startSessions(
  options: ChatLoadOptions,
): Promise<{ handles: WorkflowHandleWithFirstExecutionRunId[]; startingMs: number }> {
  const started = performance.now();
  const handles = await mapLimited(
    Array.from({ length: options.sessions }, (_, index) => index),
    options.startConcurrency,
    (index): Promise<WorkflowHandleWithFirstExecutionRunId> => {
      const where = { taskQueue: options.taskQueue, workflowId: `${options.idPrefix}-${index}` };
      if (options.floor) return options.client.workflow.start<typeof floorSession>('floorSession', where);
      return startAgent(
        options.client,
        { model: options.model, tools: [], workspace: options.workspace, session: { idleTimeoutSeconds: 3600 } },
        where,
      );
    },
  );
  let waiting = handles;
  while (waiting.length > 0) {
    const ready = await mapLimited(waiting, options.startConcurrency, (handle) =>
      isWaitingForMessages(handle, options.floor ?? false),
    );
    waiting = waiting.filter((_, index) => !ready[index]);
    if (waiting.length > 0) await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return { handles, startingMs: performance.now() - started };
}

/**
 * A session waits for messages once its idle timer is started (the floor's: once its first workflow task is done) and
 * no workflow task is pending (the server's view, no worker involved). A session that ended instead (refused by the
 * worker, say) fails the benchmark with its reason, rather than being waited for forever.
 */
async function isWaitingForMessages(handle: WorkflowHandleWithFirstExecutionRunId, floor: boolean): Promise<boolean> {
  const description = await handle.describe();
  if (description.status.name !== 'RUNNING') {
    const reason = await handle.result().then(
      () => 'it completed',
      (error: Error) => (error.cause as Error | undefined)?.message ?? error.message,
    );
    throw new Error(`session ${handle.workflowId} ended (${description.status.name}) before its first message: ${reason}`);
  }
  if (description.raw.pendingWorkflowTask) return false;
  const history = await handle.fetchHistory();
  return (history.events ?? []).some((event) =>
    floor ? event.workflowTaskCompletedEventAttributes : event.timerStartedEventAttributes,
  );
}

export async function driveSessions(
  handles: WorkflowHandleWithFirstExecutionRunId[],
  options: Pick<ChatLoadOptions, 'messagesPerSession' | 'pauseMs' | 'floor'>,
): Promise<Omit<ChatLoadResult, 'handles' | 'startingMs'>> {
  const replyMs: number[] = [];
  const messages: SentMessage[] = [];
  const failures: string[] = [];
  const windowStart = performance.now();
  await Promise.all(
    handles.map(async (handle, index) => {
      const random = seeded(index + 1);
      for (let message = 1; message <= options.messagesPerSession; message++) {
        const [low, high] = options.pauseMs;
        await new Promise((resolve) => setTimeout(resolve, low + random() * (high - low)));
        const sent = performance.now();
        const sentAt = Date.now();
        const updateId = `message-${message}`;
        try {
          const args: [string] = [`message ${message}`];
          if (options.floor) await handle.executeUpdate(floorMessageUpdate, { args, updateId });
          else await handle.executeUpdate(sendMessageUpdate, { args, updateId });
          replyMs.push(performance.now() - sent);
          messages.push({ workflowId: handle.workflowId, updateId, sentAt, repliedAt: Date.now() });
        } catch (error) {
          failures.push(`${handle.workflowId}: ${(error as Error).message}`);
        }
      }
    }),
  );
  return { replyMs, messages, failures, windowMs: performance.now() - windowStart };
}

export async function terminateSessions(handles: WorkflowHandleWithFirstExecutionRunId[], concurrency: number): Promise<void> {
  await mapLimited(handles, concurrency, (handle) => handle.terminate('benchmark over').catch(() => undefined));
}

async function mapLimited<T, R>(items: T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index]);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** A small seeded generator (LCG): the same pauses on every run of the benchmark. */
function seeded(seed: number): () => number {
  let state = Math.imul(seed, 2654435761) >>> 0;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}
