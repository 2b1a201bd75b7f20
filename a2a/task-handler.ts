import { TaskState, type AgentCard, type Message, type SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';
import {
  ContentTypeNotSupportedError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { Client } from '@temporalio/client';
import { startAgent } from '../client/start-agent';
import type { AgentInput } from '../core/resolve-input';
import { isOwnedBy, ownerMemo } from '../serve/http/run-owner';
import { textAnswerField } from '../core/tool-question';
import { agentWorkflowType, approveUpdate, denyUpdate, interruptUpdate, statusQuery } from '../workflows/definitions';
import { approvalMetaKey, contextMemoField, runTask, terminalStates } from './run-task';
import { taskUpdates } from './task-updates';

/** A context id is the caller's: kept in the run's memo, so bounded. */
const maxContextIdChars = 200;

/** How long CancelTask waits for the interrupted run to end before it answers with the task as it is (ms). */
const cancelWaitMs = 10_000;

/** What the handler of one agent needs. */
export interface RunTaskOptions {
  client: Client;
  taskQueue: string;
  /** The agent's runs as `agent run --agent <name>` would start them, but the prompt, which each message brings. */
  input: Omit<AgentInput, 'prompt'>;
  /** The card in the SDK's form, for its version checks. */
  card: AgentCard;
}

/**
 * The SDK's A2ARequestHandler (what its JsonRpcTransportHandler calls) over durable runs: a task is a run, its id the
 * run's workflow id, its state read from Temporal on every request (run-task.ts), never held in this process, so a
 * task outlives the connection and the server process that started it. The principal (the ServerCallContext's user,
 * set by a2a-handler.ts from `authorize`) is recorded as the run's owner (serve/http/run-owner.ts); to anyone else the
 * task does not exist, in the same words as an id that names nothing.
 */
export class RunTaskHandler implements A2ARequestHandler {
  constructor(private readonly options: RunTaskOptions) {}

  getAgentCard(): Promise<AgentCard> {
    return Promise.resolve(this.options.card);
  }

  getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return Promise.reject(new UnsupportedOperationError('this agent has no extended card'));
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const task = await this.accept(params, context);
    if (params.configuration?.returnImmediately || isSettled(task)) return task;
    let last = task;
    for await (const update of taskUpdates(this.options.client, task.id, {
      signal: requestSignal(context),
      after: task,
      untilInterrupted: true,
    })) {
      last = update;
    }
    return last;
  }

  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const task = await this.accept(params, context);
    yield { payload: { $case: 'task', value: task } };
    if (isSettled(task)) return;
    yield* this.follow(task, context);
  }

  async getTask(params: { id: string }, context: ServerCallContext): Promise<Task> {
    return this.owned(params.id, context);
  }

  /** SubscribeToTask: a reconnect reads the task from Temporal, then follows it as the stream that was lost would have. */
  async *resubscribe(params: { id: string }, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const task = await this.owned(params.id, context);
    yield { payload: { $case: 'task', value: task } };
    if (terminalStates.has(stateOf(task))) return;
    yield* this.follow(task, context);
  }

  async cancelTask(params: { id: string }, context: ServerCallContext): Promise<Task> {
    const task = await this.owned(params.id, context);
    if (terminalStates.has(stateOf(task)))
      throw new TaskNotCancelableError(`task ${task.id} has ended (${TaskState[stateOf(task)]})`);
    // A task canceled is a turn interrupted: the run ends `interrupted`, which is the task canceled (run-task.ts).
    const handle = this.options.client.workflow.getHandle(task.id);
    await handle.executeUpdate(interruptUpdate);
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([
      handle.result().catch(() => undefined),
      new Promise((resolve) => (waited = setTimeout(resolve, cancelWaitMs))),
    ]);
    clearTimeout(waited);
    return runTask(this.options.client, task.id);
  }

  listTasks(): never {
    // A run's owner is in its memo, which the server cannot search: tasks are found by their id, not listed.
    throw new UnsupportedOperationError('tasks are read by their id (GetTask); this server does not list them');
  }

  createTaskPushNotificationConfig(): never {
    throw new PushNotificationNotSupportedError('this agent sends no push notifications: stream, or read the task');
  }
  getTaskPushNotificationConfig(): never {
    return this.createTaskPushNotificationConfig();
  }
  listTaskPushNotificationConfigs(): never {
    return this.createTaskPushNotificationConfig();
  }
  deleteTaskPushNotificationConfig(): never {
    return this.createTaskPushNotificationConfig();
  }

  /** The task's states after `task` as stream responses: status updates, the answer's artifact before its end. */
  private async *follow(task: Task, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const controller = new AbortController();
    // A caller gone stops the reading at once, not at the run's next change (an approval may wait an hour).
    const stop = () => controller.abort();
    const request = requestSignal(context);
    request.addEventListener('abort', stop, { once: true });
    try {
      for await (const update of taskUpdates(this.options.client, task.id, {
        signal: controller.signal,
        after: task,
        untilInterrupted: true,
      })) {
        for (const artifact of update.artifacts) {
          yield {
            payload: {
              $case: 'artifactUpdate',
              value: {
                taskId: update.id,
                contextId: update.contextId,
                artifact,
                append: false,
                lastChunk: true,
                metadata: undefined,
              },
            },
          };
        }
        yield {
          payload: {
            $case: 'statusUpdate',
            value: { taskId: update.id, contextId: update.contextId, status: update.status, metadata: undefined },
          },
        };
      }
    } finally {
      // A client gone stops the following (the generator is returned); the run goes on.
      request.removeEventListener('abort', stop);
      controller.abort();
    }
  }

  /**
   * A message starts a task (a new run of the agent, its text the prompt), or answers the one that waits: a message to
   * an input-required task is the person's decision on the call it asks about (the status message's question), and
   * releases exactly that call. A message to a task that works or has ended is refused: A2A starts a new task for it.
   */
  private async accept(params: SendMessageRequest, context: ServerCallContext): Promise<Task> {
    const message = params.message;
    if (!message) throw new RequestMalformedError('SendMessage needs a message');
    if (params.configuration?.taskPushNotificationConfig) {
      throw new PushNotificationNotSupportedError('this agent sends no push notifications: stream, or read the task');
    }
    const text = messageText(message);
    if (message.taskId) return this.answer(message.taskId, text, message, context);
    if (text.trim() === '') throw new RequestMalformedError('the message has no text: say what the task is');
    if (message.contextId.length > maxContextIdChars) {
      throw new RequestMalformedError(`the contextId is over ${maxContextIdChars} characters`);
    }
    const handle = await startAgent(
      this.options.client,
      { ...this.options.input, prompt: text },
      {
        taskQueue: this.options.taskQueue,
        memo: { ...ownerMemo(principalOf(context)), ...(message.contextId && { [contextMemoField]: message.contextId }) },
        staticSummary: text,
      },
    );
    return runTask(this.options.client, handle.workflowId);
  }

  private async answer(taskId: string, text: string, message: Message, context: ServerCallContext): Promise<Task> {
    const task = await this.owned(taskId, context);
    if (stateOf(task) !== TaskState.TASK_STATE_INPUT_REQUIRED) {
      throw new UnsupportedOperationError(
        `task ${taskId} is ${TaskState[stateOf(task)]}: it takes a message only while it asks one (input-required); start a new task`,
      );
    }
    const waiting = task.status?.message?.metadata?.[approvalMetaKey] as string;
    const named = message.metadata?.[approvalMetaKey];
    // An answer to a question asked earlier (a call decided meanwhile) must not decide the next one.
    if (typeof named === 'string' && named !== waiting) {
      throw new UnsupportedOperationError(`the call ${named} no longer waits; ${waiting} does: answer its question`);
    }
    const handle = this.options.client.workflow.getHandle(taskId);
    // A tool's question taking words (a remote agent of the run asks): the text is the answer; "decline" declines.
    const request = (await handle.query(statusQuery)).pendingApprovals.find((pending) => pending.id === waiting);
    const field = request?.question ? textAnswerField(request.question.schema) : undefined;
    if (field !== undefined && !/^\s*(decline|declined)?\s*[.!]?\s*$/i.test(text)) {
      const answer = JSON.stringify({ [field]: clip(text.trim(), maxAnswerChars) });
      await handle.executeUpdate(approveUpdate, { args: [{ call: waiting, arguments: answer }] });
    } else if (field === undefined && /^\s*(approve|approved|yes|y)\s*[.!]?\s*$/i.test(text)) {
      await handle.executeUpdate(approveUpdate, { args: [{ call: waiting }] });
    } else {
      const reason = text.trim() ? `the caller declined and said "${clip(text.trim(), 500)}"` : 'the caller declined';
      await handle.executeUpdate(denyUpdate, { args: [{ call: waiting, reason }] });
    }
    return runTask(this.options.client, taskId);
  }

  /** Task `id` when the caller owns it; anyone else's, a run of another kind, or none: not found, in the same words. */
  private async owned(id: string, context: ServerCallContext): Promise<Task> {
    if (!id || !(await isOwnedBy(this.options.client, id, principalOf(context)))) throw new TaskNotFoundError(`no task ${id}`);
    const description = await this.options.client.workflow.getHandle(id).describe();
    if (description.type !== agentWorkflowType) throw new TaskNotFoundError(`no task ${id}`);
    return runTask(this.options.client, id);
  }
}

/** Where a2a-handler.ts puts the HTTP request's signal in the call's context: aborted when the caller goes away. */
export const requestSignalKey = 'durable-agent/request-signal';

function requestSignal(context: ServerCallContext): AbortSignal {
  const signal = context.state.get(requestSignalKey);
  return signal instanceof AbortSignal ? signal : new AbortController().signal;
}

/** The principal a2a-handler.ts put in the call's context (an authenticated user's name). */
function principalOf(context: ServerCallContext): string {
  const user = context.user;
  if (!user?.isAuthenticated || !user.userName) throw new RequestMalformedError('not signed in');
  return user.userName;
}

/**
 * A message as the prompt: its text parts, and its data parts as their JSON. Files (bytes or URLs) are refused: a
 * run's prompt is text, and a URL would be fetched by nobody.
 */
function messageText(message: Message): string {
  return message.parts
    .map((part) => {
      switch (part.content?.$case) {
        case 'text':
          return part.content.value;
        case 'data':
          return JSON.stringify(part.content.value);
        case 'raw':
        case 'url':
          throw new ContentTypeNotSupportedError('this agent takes text and JSON data parts, not files');
        default:
          return '';
      }
    })
    .filter(Boolean)
    .join('\n');
}

function stateOf(task: Task): TaskState {
  return task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
}

function isSettled(task: Task): boolean {
  return terminalStates.has(stateOf(task)) || stateOf(task) === TaskState.TASK_STATE_INPUT_REQUIRED;
}

/** The longest answer a caller's words give a tool's question: they go into the run's history, as edited arguments do. */
const maxAnswerChars = 20_000;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
