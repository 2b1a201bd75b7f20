import { isRecord } from '../../core/is-record';
import { PersonInputNeeded, type ToolAnswer, type ToolQuestion } from '../../core/tool-question';
import type { McpInputRequired, McpRetry } from '../../mcp/connections';

/**
 * MCP 2026-07-28's multi round-trip, as questions to the run's person: a tool that answers `input_required` with
 * form elicitations has each asked (one question at a time, in the server's order), and once all are answered the
 * call is retried with them (`inputResponses`) and the server's `requestState`, echoed as it came. Anything else it
 * may ask (sampling, roots, a URL to open) this client does not give: the call is refused and the model told.
 */

/** What a question carries to the next activity of the call: everything the retry needs, nothing of the worker's. */
interface McpResume {
  requestState?: string;
  /** The elicitation the person is asked now, by the server's key. */
  asking: string;
  /** Those still to ask after it. */
  later: Elicitation[];
  /** The answers so far, by key, as the retry sends them. */
  responses: Record<string, unknown>;
}

interface Elicitation {
  key: string;
  message: string;
  schema?: Record<string, unknown>;
}

/** The server's input requests as the person's first question, or why this client cannot answer them. */
export function firstQuestion(tool: string, asked: McpInputRequired): PersonInputNeeded | string {
  const elicitations: Elicitation[] = [];
  for (const [key, request] of Object.entries(asked.inputRequired.inputRequests)) {
    const { method, params } = (request ?? {}) as { method?: unknown; params?: Record<string, unknown> };
    if (method !== 'elicitation/create' || (params?.mode !== undefined && params.mode !== 'form'))
      return `not run: the MCP tool ${tool} asked for ${describeRequest(method, params)}, which this client does not give`;
    const schema = params?.requestedSchema;
    elicitations.push({
      key,
      message: typeof params?.message === 'string' ? params.message : '',
      ...(isRecord(schema) && hasProperties(schema) && { schema }),
    });
  }
  const [first, ...later] = elicitations;
  if (!first) return `not run: the MCP tool ${tool} asked for input (input_required) but named nothing to ask`;
  const { requestState } = asked.inputRequired;
  return ask(first, { ...(requestState !== undefined && { requestState }), asking: first.key, later, responses: {} });
}

/**
 * What the person's answer leads to: the next question, the retry to send, or (declined) why the tool did not run.
 * A `resume` that is not one of ours (it came from history, written by this module) is a bug, reported as such.
 */
export function afterAnswer(tool: string, answer: ToolAnswer): PersonInputNeeded | { retry: McpRetry } | { declined: string } {
  if (!answer.accepted) return { declined: `not run: the person declined the MCP tool ${tool}'s question (${answer.reason})` };
  const resume = answer.resume as Partial<McpResume> | undefined;
  if (typeof resume?.asking !== 'string' || !isRecord(resume.responses) || !Array.isArray(resume.later))
    throw new Error(`the answer to ${tool}'s question carries no MCP state: a bug in durable-agent`);
  const responses = { ...resume.responses, [resume.asking]: { action: 'accept', content: answer.content } };
  const [next, ...later] = resume.later;
  const requestState = resume.requestState;
  if (next) return ask(next, { ...(requestState !== undefined && { requestState }), asking: next.key, later, responses });
  return { retry: { inputResponses: responses, ...(requestState !== undefined && { requestState }) } };
}

function ask(elicitation: Elicitation, resume: McpResume): PersonInputNeeded {
  const question: ToolQuestion = {
    text: elicitation.message || 'The tool asks for your go-ahead.',
    ...(elicitation.schema && { schema: elicitation.schema }),
    resume,
  };
  return new PersonInputNeeded(question);
}

function describeRequest(method: unknown, params: Record<string, unknown> | undefined): string {
  if (method === 'elicitation/create') return `a URL to be opened (${String(params?.mode)} elicitation)`;
  if (method === 'sampling/createMessage') return 'a model completion (sampling)';
  if (method === 'roots/list') return 'its roots (roots/list)';
  return `${typeof method === 'string' ? method.slice(0, 100) : 'an unknown request'}`;
}

function hasProperties(schema: Record<string, unknown>): boolean {
  return isRecord(schema.properties) && Object.keys(schema.properties).length > 0;
}
