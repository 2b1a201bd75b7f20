import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { ResolvedAgentInput } from '../core/input';
import type { ModelSettings } from '../core/agent-spec';
import { defaultIdleTimeoutSeconds } from '../core/limits';
import { withSettingsFolded, type OlderSettings } from '../core/model-settings';
import type { Message } from '../core/messages';
import type { TurnReply } from '../core/result';
import { pairedCutPoints } from '../core/tool-pairing';
import { settingsQuery } from '../workflows/definitions';
import { readConversation } from './read-conversation';
import { assertMessageSize, sendMessage } from './send-message';
import { InvalidInputError, startAgent, type AgentHandle } from './start-agent';

/** The search attribute a fork records its source in, so the Web UI can list a run's forks (`AgentForkedFrom="<id>"`). */
export const forkedFromSearchAttribute = defineSearchAttributeKey('AgentForkedFrom', SearchAttributeType.KEYWORD);

export interface ForkOptions {
  /** The run to fork: any run, finished or not, whatever it continued as new into. It is never changed. */
  workflowId: string;
  /** Keep the first `at` messages (as `agent show` numbers them); default: all of them. */
  at?: number;
  /** The fork's workflow id (default: `<source>-fork-<random>`). */
  id?: string;
  /** Another model for the fork (`provider:model`). */
  model?: string;
  /** Another agent for the fork; default: the source's. */
  agent?: string;
  /** A message the fork answers at once; without one, it waits for messages as a session. */
  prompt?: string;
  taskQueue: string;
  /** How to read the source (a query needs a worker): by default, straight from the client. */
  read?: <T>(call: () => Promise<T>) => Promise<T>;
  /**
   * Checks the fork's input before it starts (the CLI's assertStartable: its agent, model settings, tools and
   * workspace); what it throws is thrown, and nothing is started.
   */
  beforeStart?: (input: ResolvedAgentInput) => void | Promise<void>;
}

export interface ForkResult {
  handle: AgentHandle;
  forkedFrom: { workflowId: string; runId: string; messageIndex: number };
  /** The answer to `prompt`, when one was given. */
  reply?: TurnReply;
}

/**
 * Starts a new run from the conversation of another, up to message `at`: the
 * source is only read, never changed (unlike a Temporal reset). The fork is a
 * session with the source's settings, on the same or another agent or model,
 * and records where it came from in its input, its summary and details, and
 * the AgentForkedFrom search attribute. It may start only where every tool call
 * has its result; anywhere else is refused, naming the nearest points that are.
 */
export async function forkAgent(client: Client, options: ForkOptions): Promise<ForkResult> {
  // Before anything starts: an oversized prompt would otherwise leave a fork behind that never got it.
  if (options.prompt !== undefined) assertMessageSize(options.prompt);
  const read = options.read ?? (<T>(call: () => Promise<T>) => call());
  const source = client.workflow.getHandle(options.workflowId);
  const { runId } = await source.describe();
  const [messages, settings] = await read(() => Promise.all([readConversation(source), source.query(settingsQuery)]));
  const messageIndex = options.at ?? messages.length;
  checkCutPoint(messages, messageIndex);
  const forkedFrom = { workflowId: options.workflowId, runId, messageIndex };
  const sameAgent = options.agent === undefined || options.agent === settings.input.agent;
  const input: ResolvedAgentInput = {
    // The source's run settings; its overrides of its agent's settings only when the fork keeps that agent.
    ...settings.input,
    ...(!sameAgent && {
      model: undefined,
      tools: undefined,
      systemPrompt: undefined,
      maxIterations: undefined,
      modelSettings: forOtherAgent(settings.input),
    }),
    agent: options.agent ?? settings.input.agent,
    ...(options.model !== undefined && { model: options.model }),
    messages: messages.slice(0, messageIndex),
    // The source's prompt is in `messages` now, its attachments' references with it (a run before this build's
    // settings query may still name them).
    attachments: undefined,
    session: settings.input.session ?? { idleTimeoutSeconds: defaultIdleTimeoutSeconds },
    subagent: undefined,
    forkedFrom,
  };
  await options.beforeStart?.(input);
  const handle = await startAgent(client, input, {
    taskQueue: options.taskQueue,
    workflowId: options.id ?? `${options.workflowId}-fork-${randomBytes(3).toString('hex')}`,
    staticSummary: `fork of ${options.workflowId} at message ${messageIndex}`,
    searchAttributes: [{ key: forkedFromSearchAttribute, value: options.workflowId }],
  });
  if (options.prompt === undefined) return { handle, forkedFrom };
  const reply = await sendMessage(client.workflow.getHandle(handle.workflowId), options.prompt);
  return { handle, forkedFrom, reply };
}

/**
 * The source's model settings for a fork on another agent: its output limit and temperature were the source agent's
 * overrides and stay behind; its thinking budget and reasoning effort go on, as they always have. The source's input
 * may hold them in the older shape (a run started before modelSettings).
 */
function forOtherAgent(input: ResolvedAgentInput & OlderSettings): ModelSettings | undefined {
  const { maxOutputTokens: _limit, temperature: _temperature, ...kept } = withSettingsFolded(input).modelSettings ?? {};
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/** Refuses a cut inside a tool round (and outside the conversation), naming the nearest points a fork may start from. */
function checkCutPoint(messages: Message[], at: number): void {
  if (!Number.isInteger(at) || at < 1 || at > messages.length) {
    throw new InvalidInputError(`--at must be a message number from 1 to ${messages.length}, got ${at}`);
  }
  const points = pairedCutPoints(messages);
  if (points.includes(at)) return;
  const before = points.filter((point) => point < at).at(-1);
  const after = points.find((point) => point > at);
  const nearest = [before, after].filter((point) => point !== undefined).join(' or ');
  throw new InvalidInputError(
    `message ${at} is in the middle of a tool round (a tool call without its result): a fork must start where every tool call ` +
      `has its result; the nearest such points are ${nearest}`,
  );
}
