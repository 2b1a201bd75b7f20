import type { RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import type { ApprovalDecision } from '../core/result';
import { ChatRequestError } from './chat-sessions';
import type { AttachmentInput } from '../client/attachment-input';
import { agUiFiles } from './input-files';

/**
 * What an AG-UI client asks of a run (RunAgentInput), read strictly: the body is a stranger's, and a bad one gets a
 * clear 400 before anything is sent to the session. A run either carries a new user message or answers the
 * interrupts that ended the previous run (`resume`), one decision per tool call waiting for approval.
 */
export class AgUiInputError extends ChatRequestError {
  constructor(message: string, status = 400) {
    super(status, message);
    this.name = 'AgUiInputError';
  }
}

export type AgUiRequest =
  /** `steer`: `forwardedProps.steer` was true, so the message steers the turn in progress (docs/approvals.md, "Steering a turn"). */
  | { kind: 'message'; input: RunAgentInput; text: string; steer?: boolean; files?: AttachmentInput[] }
  | { kind: 'resume'; input: RunAgentInput; decisions: Array<{ call: string; decision: ApprovalDecision }> };

export function readRunAgentInput(body: unknown): AgUiRequest {
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new AgUiInputError(`not an AG-UI RunAgentInput: ${first?.path.join('.') || 'body'}: ${first?.message ?? 'invalid'}`);
  }
  const input = parsed.data as RunAgentInput;
  if (input.resume && input.resume.length > 0) return { kind: 'resume', input, decisions: input.resume.map(decisionOf) };
  // The client keeps the thread's messages and sends them all; the newest one is the person's new message.
  const last = input.messages.at(-1);
  if (!last || last.role !== 'user')
    throw new AgUiInputError('the last message must be the user message to send (or resume must answer interrupts)');
  const text = textOf(last.content);
  if (text.trim() === '') throw new AgUiInputError('the user message has no text');
  const steer = (input.forwardedProps as { steer?: unknown } | undefined)?.steer;
  if (steer !== undefined && typeof steer !== 'boolean') throw new AgUiInputError('forwardedProps.steer must be true or false');
  const files = agUiFiles(last.content);
  return { kind: 'message', input, text, ...(steer === true && { steer: true }), ...(files.length > 0 && { files }) };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .filter((part): part is { type: 'text'; text: string } => part?.type === 'text' && typeof part.text === 'string')
      .map((part) => part.text)
      .join('\n');
  }
  return '';
}

/**
 * A resume entry as our decision: `resolved` with `{ approved }` decides (with `editedArgs`, an approval of the call
 * with the person's arguments: docs/policy.md); `cancelled` (the person walked away) denies.
 */
function decisionOf(entry: NonNullable<RunAgentInput['resume']>[number]): { call: string; decision: ApprovalDecision } {
  if (entry.status === 'cancelled') {
    return { call: entry.interruptId, decision: { approved: false, reason: 'The person cancelled the approval.' } };
  }
  const payload = entry.payload as { approved?: unknown; reason?: unknown; editedArgs?: unknown } | undefined;
  if (typeof payload?.approved !== 'boolean') {
    throw new AgUiInputError(
      `resume ${entry.interruptId}: payload must be { "approved": true } or { "approved": false, "reason": "..." }`,
    );
  }
  if (payload.reason !== undefined && typeof payload.reason !== 'string') {
    throw new AgUiInputError(`resume ${entry.interruptId}: reason must be a string`);
  }
  const { editedArgs } = payload;
  if (
    editedArgs !== undefined &&
    (!payload.approved || typeof editedArgs !== 'object' || editedArgs === null || Array.isArray(editedArgs))
  ) {
    throw new AgUiInputError(`resume ${entry.interruptId}: editedArgs must be an object of arguments, with approved: true`);
  }
  return {
    call: entry.interruptId,
    decision: payload.approved
      ? // The person's arguments, as JSON text like the model's: the run checks them and decides the call again.
        { approved: true, ...(editedArgs !== undefined && { arguments: JSON.stringify(editedArgs) }) }
      : { approved: false, reason: (payload.reason as string | undefined) ?? 'Denied by the person.' },
  };
}
