import { Role, TaskState, type Artifact, type Message, type Part, type Task } from '@a2a-js/sdk';
import type { Client } from '@temporalio/client';
import { failureMessage } from '../client/failure-message';
import type { AgentResult, PendingApproval } from '../core/result';
import { textAnswerField } from '../core/tool-question';
import { statusQuery } from '../workflows/definitions';

/** The memo field that keeps a task's A2A context id in its run: read back with the task, never from this process. */
export const contextMemoField = 'a2aContextId';

/** Where a status message names the tool call that waits (its approval's id), for a client that answers by id. */
export const approvalMetaKey = 'durable-agent/approval';

/** The states after which a task takes no more messages. */
export const terminalStates: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

/**
 * The A2A task that run `taskId` is now, read from Temporal (a task is a run, its id the run's workflow id): working;
 * input-required while one of its tool calls waits for a person's approval (the status message is the question, as the
 * CLI asks it, built from the arguments that will run); completed, with the answer as the task's artifact (and the
 * structured output as a data part); canceled when its turn was interrupted (CancelTask, `agent interrupt`) or the
 * workflow cancelled; failed at any other end.
 */
export async function runTask(client: Client, taskId: string): Promise<Task> {
  const handle = client.workflow.getHandle(taskId);
  const description = await handle.describe();
  const contextId = typeof description.memo?.[contextMemoField] === 'string' ? description.memo[contextMemoField] : taskId;
  const task = (state: TaskState, text?: string, artifacts: Artifact[] = [], metadata?: Record<string, unknown>): Task => ({
    id: taskId,
    contextId,
    status: {
      state,
      message: text === undefined ? undefined : agentMessage(taskId, contextId, `${taskId}-status-${state}`, text, metadata),
      timestamp: (description.closeTime ?? new Date()).toISOString(),
    },
    artifacts,
    history: [],
    metadata: undefined,
  });
  switch (description.status.name) {
    case 'RUNNING': {
      const waiting = await handle.query(statusQuery).then(
        (status) => status.pendingApprovals,
        (): PendingApproval[] => [],
      );
      if (waiting.length === 0) return task(TaskState.TASK_STATE_WORKING);
      return task(TaskState.TASK_STATE_INPUT_REQUIRED, approvalQuestion(waiting[0], waiting.length), [], {
        [approvalMetaKey]: waiting[0].id,
      });
    }
    case 'COMPLETED':
    case 'CONTINUED_AS_NEW': {
      let result: AgentResult;
      try {
        result = (await handle.result()) as AgentResult;
      } catch (error) {
        return task(TaskState.TASK_STATE_FAILED, failureMessage(error));
      }
      if (result.status === 'completed') return task(TaskState.TASK_STATE_COMPLETED, undefined, [answerArtifact(result)]);
      if (result.status === 'interrupted') return task(TaskState.TASK_STATE_CANCELED, 'the run was interrupted');
      return task(TaskState.TASK_STATE_FAILED, `the run ended with status ${result.status}`, [answerArtifact(result)]);
    }
    case 'CANCELLED':
      return task(TaskState.TASK_STATE_CANCELED, 'the run was cancelled');
    default:
      return task(TaskState.TASK_STATE_FAILED, `the run ended ${description.status.name.toLowerCase()}`);
  }
}

/**
 * What the caller is asked while a call waits: the description a person approves (core/approval-description.ts, hidden
 * characters made visible), never text the model chose, and how to answer.
 */
function approvalQuestion(request: PendingApproval, waiting: number): string {
  const by = request.agents.length > 1 ? ` (asked by ${request.agents.join(' → ')})` : '';
  const [headline, ...preview] = (request.description ?? request.summary).split('\n');
  const more = waiting > 1 ? ` (${waiting - 1} more call(s) wait after this one)` : '';
  // A tool's question (a remote agent the run called asks): answered in words, no call to approve.
  if (request.question && textAnswerField(request.question.schema) !== undefined)
    return [`${headline}${by}${more}`, 'Answer with your reply; "decline" declines.'].join('\n');
  return [
    `Approve ${headline}?${by}${more}`,
    ...preview,
    'Answer "approve" to run it; any other answer denies it, and the agent reads your words as the reason.',
  ].join('\n');
}

/** The run's answer, exactly as the model wrote it, in a part of its own; its checked structured output beside it. */
function answerArtifact(result: AgentResult): Artifact {
  const parts: Part[] = [textPart(result.answer)];
  if (result.output !== undefined) {
    parts.push({
      content: { $case: 'data', value: result.output },
      metadata: undefined,
      filename: '',
      mediaType: 'application/json',
    });
  }
  return {
    artifactId: 'answer',
    name: 'answer',
    description: `${result.agent}'s answer`,
    parts,
    metadata: undefined,
    extensions: [],
  };
}

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

export function agentMessage(
  taskId: string,
  contextId: string,
  messageId: string,
  text: string,
  metadata?: Record<string, unknown>,
): Message {
  return {
    messageId,
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}
