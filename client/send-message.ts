import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { AgentError, failureTypes } from '../core/errors';
import { maxPromptChars } from '../core/limits';
import { isPending, type MessageReply, type TurnReply } from '../core/result';
import { awaitReplyUpdate, sendMessageUpdate, steerUpdate } from '../workflows/definitions';
import { failureMessage } from './failure-message';
import { unpinSession } from './session-versioning';
import type { AttachmentStore } from '../storage/attachment-store';
import { storeAttachments, type AttachmentInput } from './attachment-input';
import type { AttachmentPart } from '../core/attachments';
import { olderWorkerRefusal } from './older-worker-refusal';

// A run hands its messages over within a workflow task or two; asking again sooner would only spend updates.
const pendingRetryDelayMs = 200;

/** A message the session did not answer: refused by its validator, its turn failed, or the session ended first. */
export class MessageNotAnsweredError extends AgentError {
  constructor(
    message: string,
    /** The failure type: `MessageRefused` (validator), `ProviderRejectedRequest` (the provider refused the turn), `MessageNotAnswered`, ... */
    readonly type: string | undefined,
  ) {
    super(message);
  }

  /** True when the message never entered the conversation (refused by the validator or by Temporal's limits). */
  get refused(): boolean {
    return this.type === failureTypes.messageRefused || this.type === inFlightLimitType;
  }
}

const inFlightLimitType = 'InFlightUpdateLimit';

export interface SendMessageOptions {
  /**
   * Steer the turn in progress instead of queuing behind it: the turn takes the message at its next iteration (after
   * the model call and tool calls under way, before the next model call) and goes on with it. The message gets no
   * answer of its own: the reply returned is that turn's, which covers it. A turn that ends before taking it leaves
   * it to the next turn, ahead of the queue, and the reply is that turn's; with no turn in progress it is an ordinary
   * message. The run's stream says when it was taken (`steered`).
   */
  steer?: boolean;
  /**
   * Images and files sent with the message: checked and stored before the message is sent (a refused one sends
   * nothing: AttachmentRefusedError), then carried by reference (docs/attachments.md).
   */
  attachments?: Array<AttachmentInput | AttachmentPart>;
  /** Where they are stored (the stores of this process's environment unless given). */
  attachmentStore?: AttachmentStore;
}

/**
 * Sends one user message to a session and returns the reply. Follows the
 * session across continue-as-new: a message handed to the next run is asked
 * for there with awaitReply, as often as it takes. Throws MessageNotAnsweredError,
 * with the workflow's or the provider's own words, when the message is not answered.
 * `handle` must name the workflow id only (no run id), so that it reaches the newest run.
 * A session Temporal has pinned by accident is unpinned first (session-versioning.ts), so that the current build answers.
 * With `{ steer: true }` the message steers the turn in progress (SendMessageOptions).
 */
export async function sendMessage(handle: WorkflowHandle, message: string, options: SendMessageOptions = {}): Promise<TurnReply> {
  assertMessageSize(message);
  const attachments = options.attachments?.length ? await storeAttachments(options.attachments, options.attachmentStore) : [];
  // A message without attachments is the bare string every build of the workflow takes.
  const sent = attachments.length > 0 ? { content: message, attachments } : message;
  await unpinSession(handle);
  const first = options.steer ? steerUpdate : sendMessageUpdate;
  let reply: MessageReply = await update(() => handle.executeUpdate(first, { args: [sent] })).catch((error: unknown) => {
    const older = error instanceof MessageNotAnsweredError && olderWorkerRefusal(error, message, attachments.length);
    throw older ? new MessageNotAnsweredError(older, failureTypes.messageRefused) : error;
  });
  while (isPending(reply)) {
    const { ticket } = reply;
    await new Promise((resolve) => setTimeout(resolve, pendingRetryDelayMs));
    reply = await update(() => handle.executeUpdate(awaitReplyUpdate, { args: [ticket] }));
  }
  return reply;
}

/**
 * The session's validator refuses a message over maxPromptChars, but only once the update has reached
 * the worker: by then the client's data converter has written the message to external storage
 * (AGENT_PAYLOAD_DIR or the bucket; anything over 256 KiB goes there), and a refused 50 MB message
 * left a 50 MB object behind. Refused here, it is never converted, sent or stored.
 */
export function assertMessageSize(message: string): void {
  if (typeof message === 'string' && message.length > maxPromptChars) {
    throw new MessageNotAnsweredError(
      `message is ${message.length} characters; at most ${maxPromptChars} are accepted (nothing was sent)`,
      failureTypes.messageRefused,
    );
  }
}

async function update(call: () => Promise<MessageReply>): Promise<MessageReply> {
  try {
    return await call();
  } catch (error) {
    throw notAnswered(error);
  }
}

/** Temporal runs at most 10 updates of one workflow at once (history.maxInFlightUpdates); the server refuses the 11th. */
export function isInFlightLimit(error: unknown): boolean {
  for (let current = error; current; current = (current as { cause?: unknown }).cause) {
    const text = (current as { message?: unknown }).message;
    if (typeof text === 'string' && /in-flight update/i.test(text)) return true;
  }
  return false;
}

function notAnswered(error: unknown): unknown {
  if (error instanceof WorkflowUpdateFailedError) {
    const cause = error.cause as (Error & { type?: string }) | undefined;
    return new MessageNotAnsweredError(cause?.message ?? error.message, cause?.type);
  }
  if (isInFlightLimit(error)) {
    return new MessageNotAnsweredError(
      'the session already has 10 messages waiting for their replies, the most Temporal runs at once for one workflow ' +
        '(history.maxInFlightUpdates); send this one again once a reply has arrived',
      inFlightLimitType,
    );
  }
  return error instanceof Error ? error : new Error(failureMessage(error));
}
