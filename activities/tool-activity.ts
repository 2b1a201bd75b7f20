import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { z } from 'zod';
import { failureTypes, ToolInputError } from '../core/errors';
import {
  maxQuestionChars,
  maxResumeChars,
  PersonInputNeeded,
  type ToolAnswer,
  type ToolQuestionOutput,
} from '../core/tool-question';
import type { McpToolOrigin } from '../mcp/types';
import { maxToolErrorChars, maxToolOutputChars } from '../core/limits';
import { untracedSpans, type AgentSpans } from '../telemetry/agent-spans';
import type { Tool } from '../tools';
import type { DeniedPaths } from '../core/approval-policy';
import { truncateOutput } from '../tools/truncate';
import type { AttachmentPart } from '../core/attachments';
import { toolOutputParts } from '../core/tool-output';
import type { AttachmentStore } from '../storage/attachment-store';
import { attachFor, checkedToolAttachments } from './tool-attachments';
import { assertRunWorkspace, rootsOf, type WorkspaceRoots } from './scratch/run-workspace';
import { heartbeating } from './heartbeating';

export interface ToolActivityInput {
  /** The arguments the model sent, already parsed from JSON by the workflow. */
  arguments: unknown;
  workspace: string;
  /** The id the model gave the call (for its trace span; older runs' inputs lack it). */
  callId?: string;
  /** For an MCP tool: the server and the tool's name there (the activity type is the name the model sees). */
  mcp?: McpToolOrigin;
  /**
   * Answer `{ callId, output }` rather than the output alone. A local activity's id is its position (the SDK takes
   * none for it), so replay cannot tell which call a recorded result was for: the workflow asks for the call id back
   * and checks it (workflows/run-tool-calls.ts).
   */
  echoCallId?: boolean;
  /** Set by an eval's run (input.evalTools): the workspace must be a scratch copy, or the call is refused. */
  evalScratch?: boolean;
  /** The approval policy's refusing path rules for this tool: checked against the real path each open reaches. */
  deniedPaths?: DeniedPaths[];
  /**
   * The run can ask its person for this call (a tool that `asksPerson`, or an MCP tool, in a run with the patch of
   * workflows/tool-questions.ts): a question ends the activity as `{ question }` rather than as a refusal.
   */
  mayAsk?: boolean;
  /** The person's answer to the question this call's previous activity asked (workflows/tool-questions.ts). */
  answer?: ToolAnswer;
}

/**
 * A tool's output as an object: with the id of the call it answers when the workflow asked for it (`echoCallId`), and
 * with the references of the images and files the tool returned (a read_file of a PNG). Text alone without an echo
 * is a plain string, as every tool answered before attachments: a recorded history reads the same.
 */
export interface EchoedToolOutput {
  callId?: string;
  output: string;
  attachments?: AttachmentPart[];
}

/** A tool's activity: its output, or with `echoCallId` or attachments its output as an object, or the question it asks. */
export type ToolActivityFunction = (input: ToolActivityInput) => Promise<string | EchoedToolOutput | ToolQuestionOutput>;

/**
 * Wraps a tool as an activity named after it. Arguments are validated against
 * the tool's schema before the handler runs; validation errors and the tool's
 * own refusals are non-retryable, so they go straight back to the model.
 * Output is bounded before it can reach history.
 */
export function toolActivity(
  tool: Tool,
  workspaceRoot: string | WorkspaceRoots,
  spans: AgentSpans = untracedSpans,
  /** Where the images and files a tool returns are stored (its context's `attach`); without it, a tool can attach none. */
  attachments?: AttachmentStore,
): ToolActivityFunction {
  const roots = rootsOf(workspaceRoot);
  const attach = attachments && attachFor(attachments);
  return (async ({
    arguments: args,
    workspace,
    callId,
    echoCallId,
    evalScratch,
    deniedPaths,
    mayAsk,
    answer,
  }: ToolActivityInput) => {
    // prepareRun checked the workspace once; a tool call scheduled by anything else is checked all the same.
    await assertRunWorkspace(roots, workspace, evalScratch ? 'scratch' : undefined).catch((error: Error) => {
      throw ApplicationFailure.create({ type: failureTypes.configuration, message: error.message, nonRetryable: true });
    });
    const parsed = tool.input.safeParse(args);
    if (!parsed.success) {
      throw ApplicationFailure.create({
        type: failureTypes.invalidToolArguments,
        message: `invalid arguments for ${tool.name}: ${z.prettifyError(parsed.error)}`,
        nonRetryable: true,
      });
    }
    try {
      // What the handler records rides on every heartbeat of this attempt (the earlier attempt's until it records
      // anew), so that the wrapper's own ticks never send empty details over it; a retry reads it as `resumeFrom`.
      let recorded: unknown;
      const output = await heartbeating(
        (context) => {
          recorded = context.info.heartbeatDetails as unknown;
          return spans.toolCall({ tool: tool.name, callId, description: tool.description }, () =>
            tool.handler(parsed.data, {
              workspace,
              signal: context.cancellationSignal,
              resumeFrom: recorded,
              ...(deniedPaths && { deniedPaths }),
              ...(attach && { attach }),
              ...(mayAsk && tool.asksPerson && { mayAsk: true }),
              ...(answer && { answer }),
              record(details) {
                recorded = details;
                if (!context.info.isLocal) context.heartbeat(details);
              },
            }),
          );
        },
        () => recorded,
      );
      const { content, attachments: returned } = toolOutputParts(output);
      const parts = checkedToolAttachments(tool.name, returned);
      const bounded = truncateOutput(content, maxToolOutputChars);
      if (!echoCallId && parts.length === 0) return bounded;
      return { ...(echoCallId && { callId: callId ?? '' }), output: bounded, ...(parts.length > 0 && { attachments: parts }) };
    } catch (error) {
      if (error instanceof CancelledFailure) throw error;
      if (error instanceof PersonInputNeeded) return questionOutput(tool.name, error, Boolean(mayAsk && tool.asksPerson));
      if (error instanceof ToolInputError) {
        throw ApplicationFailure.create({
          type: failureTypes.toolRefused,
          message: truncateOutput(error.message, maxToolErrorChars),
          nonRetryable: true,
        });
      }
      throw boundedError(error);
    }
  }) as ToolActivityFunction;
}

/**
 * Bounds an error's message like a tool's output. A failure carries its message
 * twice (message and stack): a few MB would exceed the gRPC limit, the failure
 * would never be recorded, and the attempt would hang until its heartbeat timeout.
 */
function boundedError(error: unknown): unknown {
  if (!(error instanceof Error) || error.message.length <= maxToolErrorChars) return error;
  return ApplicationFailure.create({
    type: error instanceof ApplicationFailure ? (error.type ?? undefined) : error.name,
    message: truncateOutput(error.message, maxToolErrorChars),
    nonRetryable: error instanceof ApplicationFailure && Boolean(error.nonRetryable),
  });
}

/**
 * A handler's question as the activity's result, bounded: the remote's words (untrusted) cut to maxQuestionChars,
 * and a `resume` too heavy for history refused. A run that cannot ask (a tool without `asksPerson`, an older run) gets
 * a refusal the model reads: never a question no one will see.
 */
export function questionOutput(tool: string, asked: PersonInputNeeded, mayAsk: boolean): ToolQuestionOutput {
  const refuse = (why: string) =>
    ApplicationFailure.create({
      type: failureTypes.toolRefused,
      message: truncateOutput(`not run: ${tool} ${why}: ${asked.question.text}`, maxToolErrorChars),
      nonRetryable: true,
    });
  if (!mayAsk) throw refuse("asked for the person's input, which this run cannot ask for");
  const { text, schema, resume } = asked.question;
  if ((JSON.stringify(resume) ?? '').length > maxResumeChars || (JSON.stringify(schema) ?? '').length > maxResumeChars)
    throw refuse('asked a question too large to keep');
  return { question: { text: truncateOutput(text, maxQuestionChars), ...(schema && { schema }), resume } };
}
