import { createHash } from 'node:crypto';
import type { Message, Part, SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
import type { Client as A2AClient } from '@a2a-js/sdk/client';
import { Context } from '@temporalio/activity';
import type { Duration } from '@temporalio/common';
import { z } from 'zod';
import { ConfigurationError, ToolInputError } from '../core/errors';
import { maxToolErrorChars, maxToolOutputChars } from '../core/limits';
import { PersonInputNeeded } from '../core/tool-question';
import { defineTool, type Tool, type ToolContext } from '../tools/define-tool';
import { truncateOutput } from '../tools/truncate';

export interface RemoteA2AAgentOptions {
  /** The tool's name, as the agent's tools list names it. */
  name: string;
  /** What the model reads to choose the tool: what the remote agent does. */
  description: string;
  /** The remote agent's card (`https://host/.well-known/agent-card.json`, or an agent's own card URL). */
  cardUrl: string;
  /**
   * Headers for every request to the remote agent (its API key): read in the worker's process when a call is made,
   * never part of a call's arguments or of history.
   */
  headers?: () => Record<string, string>;
  /** Longest one attempt may take (default `10m`). A retried attempt resumes the same remote task. */
  timeout?: Duration;
  /** Attempts including the first (default 5). */
  maximumAttempts?: number;
  /** How soon a dead worker's call goes to another worker, which resumes the remote task (default `30s`). */
  heartbeatTimeout?: Duration;
  /** A person approves each call before the message is sent (default: no). */
  needsApproval?: boolean;
}

/** What a call records in its heartbeats: the remote task it started, which a retried attempt follows instead. */
interface RemoteProgress {
  remoteTaskId: string;
}

const inputSchema = z.object({
  message: z.string().min(1).describe('What to ask the remote agent, with everything it needs to know'),
});

/** A remote task id is the remote's: bounded before it is recorded. */
const maxRemoteIdChars = 200;

/**
 * A remote A2A agent as a tool: a call sends the model's message to the agent of `cardUrl` (the SDK's client,
 * JSON-RPC, streaming when the card offers it) and returns the task's answer (its artifacts' text). The call is a
 * durable activity: retried, heartbeated, and the remote task's id recorded in its heartbeats as soon as the remote
 * names it, so an attempt on another worker (the first one killed mid-call) reads that task again (GetTask, then
 * SubscribeToTask) rather than sending the message a second time. The message's id is derived from the run and the
 * call, the same on every attempt, so a remote that de-duplicates messages sees one.
 *
 * The remote is untrusted input: its answer is cut to the tool output bound, its words in errors to the error bound,
 * its ids bounded before they are recorded. A remote task that ends otherwise than completed is an error result the
 * model reads, at once (not retried). One that asks for input (`input-required`) is put to the run's person as an
 * approval (core/tool-question.ts); their answer goes to the same remote task, by the call's next activity, and a
 * decline cancels it (docs/a2a.md, "Remote agents as tools"). One asking for credentials (`auth-required`) is canceled.
 */
export function remoteA2AAgent(options: RemoteA2AAgentOptions): Tool<z.output<typeof inputSchema>> {
  const card = new URL(options.cardUrl);
  if (card.protocol !== 'https:' && card.protocol !== 'http:') {
    throw new ConfigurationError(`remote A2A agent "${options.name}": cardUrl must be an http(s) URL`);
  }
  return defineTool({
    name: options.name,
    description: options.description,
    input: inputSchema,
    activity: {
      timeout: options.timeout ?? '10m',
      maximumAttempts: options.maximumAttempts ?? 5,
      ...(options.heartbeatTimeout !== undefined && { heartbeatTimeout: options.heartbeatTimeout }),
    },
    ...(options.needsApproval !== undefined && { needsApproval: options.needsApproval }),
    // The remote's `input-required` is put to the run's person (core/tool-question.ts).
    asksPerson: true,
    describeForApproval: ({ message }) => ({ headline: `ask the remote agent ${options.name}`, preview: message }),
    handler: (input, context) => callRemote(options, card, input.message, context),
  });
}

/**
 * The SDK, loaded at the first call: `durable-agent` exports this tool, and an app that never calls a remote agent does
 * not load the SDK (nor jose, ESM only, which its CommonJS build requires).
 */
let sdk: typeof import('@a2a-js/sdk');
let TaskState: typeof import('@a2a-js/sdk').TaskState;

async function callRemote(options: RemoteA2AAgentOptions, card: URL, text: string, context: ToolContext): Promise<string> {
  sdk ??= await import('@a2a-js/sdk');
  TaskState = sdk.TaskState;
  const { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } =
    await import('@a2a-js/sdk/client');
  const fetchImpl: typeof fetch = (url, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(options.headers?.() ?? {})) headers.set(name, value);
    return fetch(url, { ...init, headers, signal: init?.signal ?? context.signal });
  };
  const factory = new ClientFactory({
    ...ClientFactoryOptions.default,
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  const client = await factory.createFromUrl(card.origin, card.pathname);
  const requestOptions = { signal: context.signal };
  const resumed = remoteTaskOf(context.resumeFrom);
  let task: Task | undefined;
  if (resumed) {
    // The earlier attempt started this task: read it as it is now, and follow it if it still works.
    task = await client.getTask({ tenant: '', id: resumed }, requestOptions);
    if (!isSettled(task)) {
      const working = task;
      task = await follow(client.resubscribeTask({ tenant: '', id: resumed }, requestOptions), working, context).catch(
        // Ended between the two reads: a remote refuses to follow an ended task, and the task is read once more.
        async (error: unknown) => {
          const again = await client.getTask({ tenant: '', id: resumed }, requestOptions);
          if (isSettled(again)) return again;
          throw error;
        },
      );
    }
  } else if (context.answer) {
    // The person answered the question the remote task asked (workflows/tool-questions.ts): to that same task.
    const asked = remoteTaskOf(context.answer.resume);
    if (!asked) throw new Error(`the answer to ${options.name}'s question names no remote task: a bug in durable-agent`);
    if (!context.answer.accepted) {
      await cancelRemote(client, asked, context);
      throw new ToolInputError(
        `the person declined to answer the remote agent ${options.name}'s question (${context.answer.reason}); its task was canceled`,
      );
    }
    // Recorded before the answer goes: an attempt after a lost one reads the task rather than answer it twice (a
    // task still asking is put to the person again).
    record(asked, context);
    const answer = sdk.SendMessageRequest.fromJSON({
      message: {
        messageId: messageIdOf(),
        role: 'ROLE_USER',
        taskId: asked,
        parts: [{ text: answerText(context.answer.content) }],
      },
    });
    const sent = await send(client, answer, context);
    if (typeof sent === 'string') return sent;
    task = sent;
  } else {
    const request = sdk.SendMessageRequest.fromJSON({
      message: { messageId: messageIdOf(), role: 'ROLE_USER', parts: [{ text }] },
    });
    const sent = await send(client, request, context);
    if (typeof sent === 'string') return sent;
    task = sent;
  }
  if (!task) throw new Error(`the remote agent ${options.name} answered with no task`);
  return outcome(client, task, options.name, context);
}

/** A message sent, streaming when the card offers it: the task it started or went on with, or a direct answer's text. */
async function send(client: A2AClient, request: SendMessageRequest, context: ToolContext): Promise<Task | string | undefined> {
  const requestOptions = { signal: context.signal };
  const streaming = (await client.getAgentCard()).capabilities?.streaming === true;
  if (streaming) return follow(client.sendMessageStream(request, requestOptions), undefined, context);
  const result = await client.sendMessage(request, requestOptions);
  if ('messageId' in result) return bounded(textOf((result as Message).parts));
  record((result as Task).id, context);
  return result as Task;
}

/**
 * Cancels a remote task, best effort and bounded: a remote that never answers a CancelTask (its executor never
 * publishes `canceled`) must not hold the call until its timeout, when the result is already known.
 */
async function cancelRemote(client: A2AClient, id: string, context: ToolContext): Promise<void> {
  const signal = AbortSignal.any([context.signal, AbortSignal.timeout(cancelWaitMs)]);
  await client.cancelTask({ tenant: '', id, metadata: undefined }, { signal }).catch(() => undefined);
}

const cancelWaitMs = 10_000;

/** What the person's answer tells the remote: their words, or a plain yes when they approved without any. */
function answerText(content: Record<string, unknown>): string {
  return typeof content.answer === 'string' && content.answer.trim() ? content.answer : 'yes';
}

/** The answer a remote's question takes: free text, given as the approval's arguments. */
const answerSchema = {
  type: 'object',
  properties: { answer: { type: 'string', description: 'What to tell the remote agent; approving without it says "yes"' } },
};

/** The stream's events folded into the task as it ends (or stops), its id recorded as soon as it is known. */
async function follow(
  events: AsyncGenerator<StreamResponse>,
  start: Task | undefined,
  context: ToolContext,
): Promise<Task | undefined> {
  let task = start;
  for await (const event of events) {
    const payload = event.payload;
    if (!payload) continue;
    switch (payload.$case) {
      case 'task':
        task = { ...payload.value, artifacts: task?.artifacts.length ? task.artifacts : payload.value.artifacts };
        record(task.id, context);
        break;
      case 'statusUpdate':
        if (task) task = { ...task, status: payload.value.status };
        break;
      case 'artifactUpdate': {
        const artifact = payload.value.artifact;
        if (!task || !artifact) break;
        const others = task.artifacts.filter((kept) => kept.artifactId !== artifact.artifactId);
        const earlier = task.artifacts.find((kept) => kept.artifactId === artifact.artifactId);
        const parts = payload.value.append && earlier ? [...earlier.parts, ...artifact.parts] : artifact.parts;
        task = { ...task, artifacts: [...others, { ...artifact, parts }] };
        break;
      }
      case 'message':
        // A direct answer, no task: the stream's only event.
        return {
          id: '',
          contextId: '',
          status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: undefined },
          artifacts: [
            { artifactId: 'message', name: '', description: '', parts: payload.value.parts, metadata: undefined, extensions: [] },
          ],
          history: [],
          metadata: undefined,
        };
    }
    if (task && isSettled(task)) break;
  }
  return task;
}

/** The call's result from the remote task: its answer, or an error result the model reads. */
async function outcome(client: A2AClient, task: Task, name: string, context: ToolContext): Promise<string> {
  const state = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  const said = clip(textOf(task.status?.message?.parts ?? []));
  // The run's person answers a question (in a run that can ask), and the next activity of this call sends the answer.
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED && context.mayAsk)
    throw new PersonInputNeeded({
      text: said || `the remote agent ${name} asks for input`,
      schema: answerSchema,
      resume: { remoteTaskId: task.id } satisfies RemoteProgress,
    });
  switch (state) {
    case TaskState.TASK_STATE_COMPLETED:
      return bounded(task.artifacts.map((artifact) => textOf(artifact.parts)).join('\n'));
    case TaskState.TASK_STATE_INPUT_REQUIRED:
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      // Nobody here can answer it: the remote task is canceled so it does not wait forever.
      await cancelRemote(client, task.id, context);
      throw new ToolInputError(`the remote agent ${name} asked for input, which this call cannot give (task canceled): ${said}`);
    case TaskState.TASK_STATE_FAILED:
    case TaskState.TASK_STATE_REJECTED:
    case TaskState.TASK_STATE_CANCELED:
      throw new ToolInputError(`the remote agent ${name} ended its task ${TaskState[state]}: ${said || 'it said nothing'}`);
    default:
      // The stream stopped while the task works (the connection dropped): retried, and the retry follows the same task.
      throw new Error(`the remote agent ${name}'s stream ended while its task was ${TaskState[state] ?? state}`);
  }
}

function record(remoteTaskId: string, context: ToolContext): void {
  if (!remoteTaskId) return;
  if (remoteTaskId.length > maxRemoteIdChars) throw new ToolInputError('the remote agent named its task with an oversized id');
  if (remoteTaskOf(context.resumeFrom) === remoteTaskId) return;
  const progress: RemoteProgress = { remoteTaskId };
  context.record?.(progress);
}

function remoteTaskOf(details: unknown): string | undefined {
  const id = (details as Partial<RemoteProgress> | undefined)?.remoteTaskId;
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

/** The same id on every attempt of one call, and a different one for every call of every run. */
function messageIdOf(): string {
  const info = Context.current().info;
  return createHash('sha256')
    .update(`${info.workflowExecution?.workflowId ?? ''}\0${info.activityId}`)
    .digest('hex')
    .slice(0, 32);
}

function isSettled(task: Task): boolean {
  const state = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  return (
    state !== TaskState.TASK_STATE_WORKING &&
    state !== TaskState.TASK_STATE_SUBMITTED &&
    state !== TaskState.TASK_STATE_UNSPECIFIED
  );
}

function textOf(parts: Part[]): string {
  return parts
    .map((part) => {
      switch (part.content?.$case) {
        case 'text':
          return part.content.value;
        case 'data':
          return JSON.stringify(part.content.value);
        case 'url':
          return `[file ${part.filename || part.content.value} not shown]`;
        case 'raw':
          return `[file ${part.filename || 'bytes'} (${part.content.value.length} bytes) not shown]`;
        default:
          return '';
      }
    })
    .filter(Boolean)
    .join('\n');
}

function bounded(text: string): string {
  return truncateOutput(text, maxToolOutputChars);
}

function clip(text: string): string {
  return truncateOutput(text, maxToolErrorChars / 2);
}
