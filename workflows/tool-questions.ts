import { patched, workflowInfo } from '@temporalio/workflow';
import { describeCall } from '../core/approval-description';
import type { ToolCall } from '../core/messages';
import type { ApprovalDecision, PendingApproval } from '../core/result';
import { parseToolArguments } from '../core/tool-arguments';
import { questionRule, questionText, type ToolAnswer, type ToolQuestion } from '../core/tool-question';

/**
 * The patch under which a tool that may ask the person mid-call (an MCP tool, a tool with `asksPerson`) is told it
 * may (ToolActivityInput's `mayAsk`), and its question is asked through the run's approvals, the call resumed with
 * the answer by a new activity. Runs recorded before it never gave `mayAsk`: their tools refused instead (an MCP
 * `input_required` was an error result, a remote A2A task asking for input was canceled), and replay keeps that.
 */
export const toolQuestionsPatch = 'tool-asks-person';

export function mayAskPerson(): boolean {
  return patched(toolQuestionsPatch);
}

/** The approval request that puts a tool's question to the person: the call's id, the question's words made visible. */
export function questionRequest(call: ToolCall, question: ToolQuestion, agents: string[]): PendingApproval {
  const { summary, description } = describeCall(call, questionText(call.name, question), workflowInfo().workflowId);
  return {
    id: call.id,
    tool: call.name,
    summary,
    description,
    agents,
    // Each question is timed from its own asking, not from an approval the call may have had before it ran.
    askedAt: new Date().toISOString(),
    rule: questionRule,
    question: { ...(question.schema && { schema: question.schema }) },
  };
}

/** The person's decision as the tool's answer: approved is accepted (with the arguments given as its content). */
export function answerOf(decision: ApprovalDecision, question: ToolQuestion): ToolAnswer {
  if (!decision.approved) return { accepted: false, reason: decision.reason, resume: question.resume };
  const given = decision.arguments === undefined ? undefined : parseToolArguments(decision.arguments);
  const content = given?.ok && typeof given.value === 'object' && given.value !== null ? given.value : {};
  return { accepted: true, content: content as Record<string, unknown>, resume: question.resume };
}

/** The activity id of the `round`th resumption of a call (its first activity's id, suffixed), or none in older runs. */
export function resumedActivityId(first: string | undefined, round: number): string | undefined {
  return first === undefined ? undefined : `${first}-answer-${round}`;
}
