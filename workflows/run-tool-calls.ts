import { ActivityCancellationType, ActivityFailure, ApplicationFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import { failureTypes } from '../core/errors';
import type { ToolCall, ToolResultMessage } from '../core/messages';
import type { ToolActivityInput } from '../activities';
import type { ToolActivitySettings } from '../tools/define-tool';
import { toolCallSummary } from './summaries';

export interface ToolRunContext {
  workspace: string;
  /** Settings of the enabled tools, from prepareRun. */
  tools: Record<string, ToolActivitySettings>;
  maxConcurrent: number;
  onStart(summary: string): void;
  onFinish(summary: string, result: ToolResultMessage): void;
}

/**
 * Runs the model's tool calls as concurrent activities, at most `maxConcurrent`
 * at once, and returns their results in the order the model asked for them.
 * Anything that goes wrong with a call becomes an error result for the model;
 * only cancellation propagates.
 */
export async function runToolCalls(calls: ToolCall[], context: ToolRunContext): Promise<ToolResultMessage[]> {
  const results: ToolResultMessage[] = new Array(calls.length);
  let next = 0;
  const lane = async () => {
    while (next < calls.length) {
      const index = next++;
      results[index] = await runOne(calls[index], context);
    }
  };
  await Promise.all(Array.from({ length: Math.min(context.maxConcurrent, calls.length) }, lane));
  return results;
}

async function runOne(call: ToolCall, context: ToolRunContext): Promise<ToolResultMessage> {
  const result = (content: string, isError: boolean): ToolResultMessage => ({
    role: 'tool',
    toolCallId: call.id,
    toolName: call.name,
    content,
    isError,
  });
  const settings = context.tools[call.name];
  if (!settings) {
    const available = Object.keys(context.tools).join(', ') || 'none';
    return finish(context, call.name, result(`Error: unknown tool "${call.name}". Available tools: ${available}.`, true));
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.arguments || '{}');
  } catch (error) {
    return finish(context, call.name, result(`Error: arguments for ${call.name} are not valid JSON (${(error as Error).message}).`, true));
  }
  const summary = toolCallSummary(call, parsed);
  context.onStart(summary);
  const activity = proxyActivities<Record<string, (input: ToolActivityInput) => Promise<string>>>({
    summary,
    startToCloseTimeout: settings.timeout,
    heartbeatTimeout: '30s',
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: { maximumAttempts: settings.maximumAttempts, initialInterval: settings.initialRetryInterval, backoffCoefficient: 2 },
  })[call.name];
  try {
    const output = await activity({ arguments: parsed, workspace: context.workspace });
    return finish(context, summary, result(output, false));
  } catch (error) {
    if (isCancellation(error)) throw error;
    return finish(context, summary, result(`Error: ${describeToolFailure(call.name, error, settings)}`, true));
  }
}

function finish(context: ToolRunContext, summary: string, result: ToolResultMessage): ToolResultMessage {
  context.onFinish(summary, result);
  return result;
}

function describeToolFailure(name: string, error: unknown, settings: ToolActivitySettings): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure && cause.nonRetryable) {
    // Our own refusals and argument errors: the message is for the model as it is.
    if (cause.type === failureTypes.invalidToolArguments || cause.type === failureTypes.toolRefused) return cause.message;
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return `${name} failed after ${settings.maximumAttempts} attempt(s): ${message}`;
}
