import type { ApprovalText } from './approval-description';
import { AgentError } from './errors';

/**
 * A question a tool puts to the run's person mid-call: a remote MCP tool that answered `input_required` (MCP
 * 2026-07-28), a remote A2A agent whose task is `input-required`. The tool's activity ends with the question as its
 * result; the workflow asks it through the run's approvals (the one path every surface renders: CLI, web, AG-UI, MCP
 * elicitation, A2A), and calls the tool's activity again with the answer and the question's `resume`. The question is
 * in history from then on, so a worker killed while the person decides loses nothing.
 */
export interface ToolQuestion {
  /** What the person reads: the remote's words, bounded here and shown with hidden characters made visible. */
  text: string;
  /** The JSON Schema of the answer the tool takes (an MCP elicitation's `requestedSchema`); none: yes or no. */
  schema?: Record<string, unknown>;
  /** What the next activity of the call needs to go on (an MCP `requestState`, a remote task id): small, no secret. */
  resume: unknown;
}

/** The person's answer, with the question's `resume`: accepted (and what they gave, an object), or declined. */
export type ToolAnswer = { resume: unknown } & (
  { accepted: true; content: Record<string, unknown> } | { accepted: false; reason: string }
);

/** A tool activity's result that is a question, not an output (ToolActivityInput's `mayAsk` lets a tool ask). */
export interface ToolQuestionOutput {
  question: ToolQuestion;
}

/** The longest question text kept: it is the remote's, untrusted, and goes into history and before a person. */
export const maxQuestionChars = 4_000;
/** The most a question's `resume` may weigh as JSON (an MCP `requestState` is the server's, of any size). */
export const maxResumeChars = 32_000;
/** How many questions one call may ask before it is given up: a remote that asks forever must not keep a run. */
export const maxQuestionsPerCall = 10;

/** The rule a question's approval request names (PendingApproval's `rule`): no policy asked, the tool did. */
export const questionRule = 'tool_question';

/** Thrown by a tool's handler that needs the person's answer before it can go on (ToolContext's `mayAsk`). */
export class PersonInputNeeded extends AgentError {
  constructor(readonly question: ToolQuestion) {
    // The question is `question`; the message only says what this is, for a log that prints the error.
    super("the tool asks the run's person a question before it can go on");
  }
}

export function isToolQuestionOutput(value: unknown): value is ToolQuestionOutput {
  const question = (value as { question?: { text?: unknown } } | null)?.question;
  return typeof value === 'object' && value !== null && typeof question?.text === 'string';
}

/** How the question reads to the person, before core/approval-description.ts makes its hidden characters visible. */
export function questionText(tool: string, question: ToolQuestion): ApprovalText {
  const [first, ...rest] = question.text.split('\n');
  const how = question.schema
    ? `Approve to answer, with arguments: a JSON object of this schema: ${JSON.stringify(question.schema).slice(0, 600)}; deny to decline.`
    : 'Approve to answer yes; deny to decline.';
  return { headline: `${tool} asks: ${first}`, preview: [...rest, how].join('\n') };
}

/**
 * The one text field a question's schema asks for (a remote A2A agent's `answer`, an MCP elicitation of one string),
 * which a line of text answers; undefined for a form of other or more fields (answered as JSON arguments).
 */
export function textAnswerField(schema: Record<string, unknown> | undefined): string | undefined {
  const properties = schema?.properties;
  if (typeof properties !== 'object' || properties === null) return undefined;
  const fields = Object.entries(properties as Record<string, { type?: unknown } | null>);
  return fields.length === 1 && fields[0][1]?.type === 'string' ? fields[0][0] : undefined;
}
