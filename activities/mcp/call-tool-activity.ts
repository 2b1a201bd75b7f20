import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { failureTypes } from '../../core/errors';
import { maxToolErrorChars, maxToolOutputChars } from '../../core/limits';
import { isInputRequired, McpRequestRefused, McpServerUnavailable, type McpConnections } from '../../mcp/connections';
import { toolResultText } from '../../mcp/tool-result';
import { truncateOutput } from '../../tools/truncate';
import { untracedSpans, type AgentSpans } from '../../telemetry/agent-spans';
import { heartbeating } from '../heartbeating';
import { questionOutput, type EchoedToolOutput, type ToolActivityInput } from '../tool-activity';
import { PersonInputNeeded, type ToolQuestionOutput } from '../../core/tool-question';
import { afterAnswer, firstQuestion } from './input-required';
import { attachFor } from '../tool-attachments';
import type { AttachmentStore } from '../../storage/attachment-store';
import { mcpResultWithAttachments } from './result-attachments';

/**
 * Every MCP tool call, under the activity type of the tool's own name
 * (`github_create_issue`): registered as the worker's default activity
 * (Temporal's dynamic activity: it runs any activity type the worker has no
 * function for), since a server's tools are known only once a run lists them.
 * The call's server and tool come with the input, as the run's listing recorded
 * them. What the model should read goes back as an error result: the tool's
 * own error (isError) and the server's protocol errors at once; a server that
 * is down or crashed after the tool's retries, each on a fresh connection.
 */
export function mcpToolActivity(
  connections: McpConnections,
  spans: AgentSpans = untracedSpans,
  /** Where the images a tool returns are stored (result-attachments.ts); without it they are named in words only. */
  attachments?: AttachmentStore,
) {
  const attach = attachments && attachFor(attachments);
  return async function mcpTool(input: ToolActivityInput): Promise<string | EchoedToolOutput | ToolQuestionOutput> {
    return heartbeating(async (context) => {
      const name = context.info.activityType;
      if (!input?.mcp) {
        // What the worker would have said without a default activity: another worker may have this one.
        throw ApplicationFailure.create({
          type: 'NotFoundError',
          message: `Activity function ${name} is not registered on this Worker`,
          nonRetryable: false,
        });
      }
      const { server, tool } = input.mcp;
      const args = input.arguments ?? {};
      if (typeof args !== 'object' || Array.isArray(args)) {
        throw refusal(`invalid arguments for ${name}: the arguments must be a JSON object`);
      }
      try {
        // The person's answer to the question the call's previous activity asked: the next question, or the retry.
        const next = input.answer && afterAnswer(name, input.answer);
        if (next instanceof PersonInputNeeded) return questionOutput(name, next, true);
        if (next && 'declined' in next) throw refusal(next.declined);
        const result = await spans.toolCall(
          { tool: name, callId: input.callId, description: `MCP server "${server}", tool "${tool}"` },
          () =>
            connections.callTool(
              server,
              tool,
              args as Record<string, unknown>,
              { signal: context.cancellationSignal, timeoutMs: context.info.startToCloseTimeoutMs },
              next?.retry,
            ),
        );
        if (isInputRequired(result)) {
          // The server's words: redacted like its errors, since they may quote its address.
          const asked = firstQuestion(name, result);
          if (typeof asked === 'string') throw refusal(connections.redact(asked));
          if (!input.mayAsk)
            throw refusal(
              `not run: the MCP tool ${name} asked for input (input_required), which this run cannot ask a person for`,
            );
          return questionOutput(name, asked, true);
        }
        // An error the server words may quote its own address: redacted like every MCP failure message.
        if (result.isError) throw refusal(connections.redact(toolResultText(result)) || `${name} failed without saying why`);
        const output = attach
          ? await mcpResultWithAttachments(result, attach)
          : { content: toolResultText(result), attachments: [] };
        const text = truncateOutput(output.content, maxToolOutputChars);
        // Text alone is a string, as this activity always answered (a local call's echo included).
        if (output.attachments.length === 0) return text;
        return {
          ...(input.echoCallId && { callId: input.callId ?? '' }),
          output: text,
          ...(output.attachments.length > 0 && { attachments: output.attachments }),
        };
      } catch (error) {
        if (error instanceof ApplicationFailure || error instanceof CancelledFailure) throw error;
        if (error instanceof McpRequestRefused) throw refusal(error.message);
        if (error instanceof McpServerUnavailable) {
          throw ApplicationFailure.create({
            type: failureTypes.mcpServerUnavailable,
            message: truncateOutput(error.message, maxToolErrorChars),
            nonRetryable: false,
          });
        }
        // Anything else the SDK threw: its message (and the stack, which repeats it) may name the server's URL.
        const unexpected = error instanceof Error ? error : new Error(String(error));
        throw ApplicationFailure.create({
          type: unexpected.name,
          message: truncateOutput(connections.redact(unexpected.message), maxToolErrorChars),
          nonRetryable: false,
        });
      }
    });
  };
}

/** For the model as it is, at once: retrying would get the same answer. */
function refusal(message: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: failureTypes.toolRefused,
    message: truncateOutput(message, maxToolErrorChars),
    nonRetryable: true,
  });
}
