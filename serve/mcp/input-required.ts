import { createHash, randomBytes } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  type InputRequest,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { WorkflowHandle } from '@temporalio/client';
import type { PendingApproval } from '../../core/result';
import { approveUpdate, denyUpdate, statusQuery } from '../../workflows/definitions';
import { acceptedArguments, approvalForm, noElicitationReason, question } from './elicit-approvals';

/**
 * Approvals for clients of MCP's 2026-07-28 revision, which has no server-to-client requests: a call that waits for a
 * person's approval is answered `input_required`, with one elicitation per call waiting (the question the CLI asks,
 * and until when it may be answered) and a `requestState` naming the run and the call. The client asks its user and
 * retries the same tools/call with the answer (`inputResponses`) and the state; the retry decides exactly that call
 * and follows the run on. The state is signed (HMAC, the SDK's codec) with a key of this process and bound to the
 * principal, and says which tool and prompt it answers for: a forged state, one of another principal, or one sent
 * with another call's arguments is refused (-32602); an answer under another call's key decides nothing. A state
 * replayed after its call was decided decides nothing again: the run's own pending approvals (a query of the run,
 * never this process's memory) say what may still be decided.
 */

/** What a requestState carries: the run, the call it asks about, and the call it was minted for. */
export interface ApprovalState {
  run: string;
  call: string;
  tool: string;
  /** A digest of the prompt, so that the state cannot answer a call with another prompt. */
  prompt: string;
}

/** The key of this process's states: a state minted here is verified here (a retry goes where its call went). */
const stateKey = randomBytes(32);

/** The codec of one principal's states: bound to the principal, valid as long as the run's approval timeout. */
export function approvalStateCodec(principal: string, approvalTimeoutMs: number): RequestStateCodec<ApprovalState> {
  return createRequestStateCodec<ApprovalState>({
    key: stateKey,
    ttlSeconds: Math.max(1, Math.ceil(approvalTimeoutMs / 1000)),
    bind: () => `durable-agent approval\0${principal}`,
  });
}

export function promptDigest(prompt: string): string {
  return createHash('sha256').update(prompt).digest('base64url');
}

/** The inputRequests key of one call's approval: unique over the run (call ids are), so over a task's life too. */
export function approvalKey(call: string): string {
  return `approval:${call}`;
}

/** Whether the request's own capabilities (its `_meta`, this revision has no handshake) can ask a person. */
export function canElicit(ctx: ServerContext): boolean {
  const declared = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
    { elicitation?: { form?: unknown; url?: unknown } } | undefined;
  const elicitation = declared?.elicitation;
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

/** The elicitation of one call: the CLI's question, and until when it may be answered (the approval timeout). */
export function approvalRequest(request: PendingApproval, approvalTimeoutMs: number): InputRequest {
  const expires = new Date(Date.parse(request.askedAt) + approvalTimeoutMs).toISOString();
  return inputRequired.elicit({
    mode: 'form',
    message: `${question(request)}\n(answer by ${expires}; after that the call is not run)`,
    requestedSchema: approvalForm(request) as never,
  });
}

/** The input_required answer for a call waiting on `request`. */
export async function approvalRequired(
  codec: RequestStateCodec<ApprovalState>,
  ctx: ServerContext,
  state: ApprovalState,
  request: PendingApproval,
  approvalTimeoutMs: number,
) {
  return inputRequired({
    inputRequests: { [approvalKey(request.id)]: approvalRequest(request, approvalTimeoutMs) },
    requestState: await codec.mint(state, ctx),
  });
}

/** The approvals the run waits for now, from the run itself. */
export async function pendingApprovals(handle: WorkflowHandle): Promise<PendingApproval[]> {
  return (await handle.query(statusQuery)).pendingApprovals;
}

/**
 * Decides the call `call` of the run with the person's answer, if the run still waits for it: accepted → approved
 * (with the arguments the person gave, if any: docs/policy.md);
 * declined or cancelled → denied with the person's reason. Says whether the answer was there to decide with (an
 * absent or malformed answer decides nothing: the question is asked again).
 */
export async function decideWithAnswer(
  handle: WorkflowHandle,
  call: string,
  answer: unknown,
): Promise<'decided' | 'unanswered' | 'not waiting'> {
  const request = (await pendingApprovals(handle)).find((pending) => pending.id === call);
  if (!request) return 'not waiting';
  if (typeof answer !== 'object' || answer === null) return 'unanswered';
  const { action, content } = answer as { action?: unknown; content?: { reason?: unknown; arguments?: unknown } };
  if (action === 'accept') {
    // The form's Arguments field, as on the 2025 path (./elicit-approvals.ts): edits the run refuses deny the call.
    const edited = acceptedArguments(request, content);
    await handle
      .executeUpdate(approveUpdate, { args: [{ call, ...(edited && { arguments: edited }) }] })
      .catch(async (error: Error) => {
        if (!edited) throw error;
        const why = (error as { cause?: Error }).cause?.message ?? error.message;
        await handle.executeUpdate(denyUpdate, {
          args: [{ call, reason: `not run: the arguments the MCP client's user gave were refused (${why})` }],
        });
      });
    return 'decided';
  }
  if (action !== 'decline' && action !== 'cancel') return 'unanswered';
  const given = typeof content?.reason === 'string' ? content.reason.trim() : '';
  const reason = given ? `the MCP client's user declined: ${given}` : "the MCP client's user declined";
  await handle.executeUpdate(denyUpdate, { args: [{ call, reason }] });
  return 'decided';
}

/** Refuses a call its client cannot ask about (no elicitation declared on the request), as the 2025 path does. */
export async function refuseUnaskable(handle: WorkflowHandle, call: string): Promise<void> {
  await handle.executeUpdate(denyUpdate, { args: [{ call, reason: noElicitationReason }] });
}
