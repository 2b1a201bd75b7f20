import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  setCurrentDetails,
  setHandler,
} from '@temporalio/workflow';
import { failureTypes } from '../agent/errors';
import { checkAgentInput, type AgentInput, type ValidAgentInput } from '../agent/input';
import { addUsage, zeroUsage, type Message, type ModelResponse, type Usage } from '../agent/messages';
import type { AgentResult, AgentStatus, AgentStatusSnapshot, ProgressEvent } from '../agent/result';
import type { CoreActivities } from '../activities';
import { messagesQuery, progressQuery, statusQuery } from './definitions';
import { nextStep } from './next-step';
import { runToolCalls } from './run-tool-calls';
import { modelCallSummary } from './summaries';

const { prepareRun } = proxyActivities<CoreActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 3 },
});

/**
 * Model calls: retried by Temporal only (the SDKs' retries are off); heartbeats
 * expose a dead worker within 30 s; a cancelled run waits for the call to stop.
 */
const modelActivityOptions = {
  heartbeatTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 10 },
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
} as const;

export const emptyReplyPrompt = 'Your last reply was empty. Answer the task, or call a tool if you need one.';

export const reflectionPrompt =
  'You have reached the limit on tool-using steps for this task. Without calling any tools, summarise what you have done, ' +
  'what you found, and what remains to be done.';

/**
 * The durable agent loop: call the model; if it asks for tools, run them all
 * concurrently and append their results in the order asked; repeat until the
 * model answers without tools or a limit ends the run.
 */
export async function agentWorkflow(rawInput: AgentInput): Promise<AgentResult> {
  const input = validInput(rawInput);
  const messages: Message[] = initialMessages(input);
  const progress: ProgressEvent[] = [];
  const status: AgentStatusSnapshot = {
    phase: 'starting',
    iteration: 0,
    maxIterations: input.maxIterations,
    toolCallsInFlight: [],
    usage: zeroUsage,
  };
  setHandler(messagesQuery, (options) => messages.slice(options?.from ?? 0));
  setHandler(statusQuery, () => status);
  setHandler(progressQuery, (from) => progress.slice(from ?? 0));
  const showDetails = () => setCurrentDetails(describeStatus(input, status));

  const setup = await prepareRun({ tools: input.tools, workspace: input.workspace });

  const callModel = async (turn: number, tools: string[]): Promise<ModelResponse> => {
    status.phase = 'calling_model';
    showDetails();
    const { callModel } = proxyActivities<CoreActivities>({
      ...modelActivityOptions,
      startToCloseTimeout: `${input.modelTimeoutSeconds}s`,
      summary: modelCallSummary(input.model, turn),
    });
    const response = await callModel({ model: input.model, messages, tools, maxOutputTokens: input.maxOutputTokens }).catch(
      (error: unknown) => {
        throw modelFailure(error);
      },
    );
    status.usage = addUsage(status.usage, response.usage);
    messages.push(response.message);
    progress.push({ kind: 'model_turn', turn, toolCalls: response.message.toolCalls.map((call) => call.name), usage: response.usage });
    return response;
  };
  const finish = (answer: string, outcome: AgentStatus): AgentResult => {
    status.phase = 'finished';
    showDetails();
    return { answer, status: outcome, iterations: status.iteration, usage: status.usage };
  };

  let previousWasEmpty = false;
  while (status.iteration < input.maxIterations) {
    status.iteration++;
    const turn = status.iteration;
    const response = await callModel(turn, input.tools);
    const step = nextStep(response);
    const emptyTwice = previousWasEmpty && step.kind === 'empty';
    previousWasEmpty = step.kind === 'empty';
    switch (step.kind) {
      case 'final_answer':
        return finish(response.message.content, 'completed');
      case 'truncated':
        return finish(response.message.content, 'truncated');
      case 'refused':
        return finish(response.message.content, 'refused');
      case 'empty':
        if (emptyTwice) return finish('', 'empty');
        messages.push({ role: 'user', content: emptyReplyPrompt });
        break;
      case 'run_tools': {
        status.phase = 'running_tools';
        showDetails();
        const results = await runToolCalls(response.message.toolCalls, {
          workspace: input.workspace,
          tools: setup.tools,
          maxConcurrent: input.maxConcurrentTools,
          onStart: (summary) => {
            status.toolCallsInFlight = [...status.toolCallsInFlight, summary];
            showDetails();
          },
          onFinish: (summary, result) => {
            const index = status.toolCallsInFlight.indexOf(summary);
            if (index >= 0) status.toolCallsInFlight = status.toolCallsInFlight.filter((_, position) => position !== index);
            progress.push({ kind: 'tool_done', turn, summary, isError: result.isError });
            showDetails();
          },
        });
        messages.push(...results);
        break;
      }
      default: {
        const exhaustive: never = step;
        throw new Error(`unknown step ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  // The limit was reached while the model still wanted tools: one last call without tools summarises the run.
  messages.push({ role: 'user', content: reflectionPrompt });
  const reflection = await callModel(status.iteration + 1, []);
  return finish(reflection.message.content, 'max_iterations');
}

function validInput(rawInput: AgentInput): ValidAgentInput {
  const check = checkAgentInput(rawInput);
  if (!check.ok) {
    throw ApplicationFailure.create({
      type: failureTypes.invalidInput,
      message: `invalid agent input: ${check.problems}`,
      nonRetryable: true,
    });
  }
  return check.input;
}

/**
 * A model call that failed for good ends the run. The workflow's own failure
 * repeats the provider's message, so the CLI and the Web UI show it first-hand.
 */
function modelFailure(error: unknown): unknown {
  if (isCancellation(error) || !(error instanceof ActivityFailure)) return error;
  const cause = error.cause;
  return ApplicationFailure.create({
    type: cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined,
    message: cause?.message ?? error.message,
    nonRetryable: true,
    cause: error,
  });
}

function initialMessages(input: ValidAgentInput): Message[] {
  return [
    ...(input.systemPrompt ? [{ role: 'system' as const, content: input.systemPrompt }] : []),
    ...(input.messages ?? []),
    ...(input.prompt ? [{ role: 'user' as const, content: input.prompt }] : []),
  ];
}

function describeStatus(input: ValidAgentInput, status: AgentStatusSnapshot): string {
  const usage: Usage = status.usage;
  const lines = [
    `**${status.phase.replace('_', ' ')}** · iteration ${status.iteration} of ${input.maxIterations} · model \`${input.model}\``,
    `tokens: ${usage.inputTokens} in / ${usage.outputTokens} out`,
  ];
  if (status.toolCallsInFlight.length > 0) lines.push(`tools running: ${status.toolCallsInFlight.join(', ')}`);
  return lines.join('\n\n');
}
