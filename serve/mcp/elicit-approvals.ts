import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { WorkflowHandle } from '@temporalio/client';
import { isRecord } from '../../core/is-record';
import type { PendingApproval } from '../../core/result';
import { approveUpdate, denyUpdate } from '../../workflows/definitions';

/** Said to the model when the MCP client has no way to ask its user: the call did not run, and why. */
export const noElicitationReason =
  "not run: this call needs a person's approval, and the MCP client that started the run cannot ask its user " +
  '(it did not declare the elicitation capability). Use a client that supports elicitation, or start agent mcp ' +
  'with --yes (approve every call) or without this tool in --approve-tools';

/** Said to the model when the user declined or dismissed the question. */
const declinedReason = "the MCP client's user declined";

/**
 * The fields of the elicitation form: the reason the user may give when declining, and the arguments they may
 * approve the call with instead of the model's (docs/policy.md, "Edits").
 */
export const reasonForm = {
  type: 'object',
  properties: {
    reason: { type: 'string', title: 'Reason', description: 'Why not (when you decline): the agent reads it' },
    arguments: {
      type: 'string',
      title: 'Arguments (JSON)',
      description: 'When you accept: run the call with these arguments instead (empty: as asked)',
    },
  },
} as const;

/**
 * The form a request is put with: the reason to decline, and the arguments to approve with instead (reasonForm); for a
 * tool's question (core/tool-question.ts) the fields its own schema asks for instead of the arguments, so that the
 * client's user answers in them, as they would the remote's own question.
 */
export function approvalForm(request: PendingApproval): { type: 'object'; properties: Record<string, unknown> } {
  const asked = request.question?.schema?.properties;
  if (!request.question || !isRecord(asked)) return reasonForm;
  const { reason: _taken, ...fields } = asked;
  return { type: 'object', properties: { ...fields, reason: reasonForm.properties.reason } };
}

/**
 * What an accepted form approves with, as the approve update's `arguments` (JSON text; empty: as asked): the edited
 * arguments of a call, or the answer to a tool's question (its fields, the reason left out).
 */
export function acceptedArguments(request: PendingApproval | undefined, content: unknown): string {
  const given = isRecord(content) ? content : {};
  if (request?.question) {
    const { reason: _reason, ...answer } = given;
    return Object.keys(answer).length > 0 ? JSON.stringify(answer) : '';
  }
  return typeof given.arguments === 'string' ? given.arguments.trim() : '';
}

/**
 * Puts each tool call of a run that waits for approval to the MCP client's user, through elicitation: accepted →
 * approved (with the arguments the user gave, if any); declined or dismissed → denied with that reason. A client without the elicitation capability cannot
 * ask, so the call is denied with a reason that says so (noElicitationReason): never approved silently. The question
 * is the description the CLI shows (core/approval-description.ts, built from the arguments that will run, hidden
 * characters made visible), never text the model chose. One question per call, asked once; a call decided meanwhile
 * elsewhere (`agent approve`, the approval timeout) withdraws its question.
 */
export class ElicitedApprovals {
  private readonly seen = new Set<string>();
  private readonly open = new Map<string, AbortController>();

  constructor(
    private readonly server: Server,
    private readonly handle: WorkflowHandle,
    /** The call's signal: a cancelled call (or a client gone) withdraws its questions. */
    private readonly signal: AbortSignal,
    /** How long a person may take to answer, the run's approval timeout. */
    private readonly timeoutMs: number,
    private readonly log: (line: string) => void,
  ) {}

  requested(request: PendingApproval): void {
    if (this.seen.has(request.id)) return;
    this.seen.add(request.id);
    void this.decide(request).catch((error: Error) =>
      this.log(
        `agent mcp: could not decide ${request.summary} (call ${request.id}) of ${this.handle.workflowId}: ${error.message}`,
      ),
    );
  }

  decided(id: string): void {
    this.open.get(id)?.abort();
    this.open.delete(id);
  }

  private async decide(request: PendingApproval): Promise<void> {
    if (!this.canElicit()) return this.deny(request.id, noElicitationReason);
    const withdrawn = new AbortController();
    this.open.set(request.id, withdrawn);
    const signal = AbortSignal.any([withdrawn.signal, this.signal]);
    let answer: Awaited<ReturnType<Server['elicitInput']>>;
    try {
      answer = await this.server.elicitInput(
        { mode: 'form', message: question(request), requestedSchema: approvalForm(request) as never },
        { signal, timeout: this.timeoutMs },
      );
    } catch (error) {
      // Withdrawn (decided elsewhere, the call cancelled, the client gone): the run decides by other means.
      if (signal.aborted) return;
      // The client could not ask (it refused the request, it timed out): not run, and the model is told why.
      return this.deny(request.id, `not run: the MCP client's user could not be asked (${(error as Error).message})`);
    } finally {
      this.open.delete(request.id);
    }
    if (answer.action === 'accept') {
      const edited = acceptedArguments(request, answer.content);
      // Edited arguments the run refuses (not JSON, not an object) leave the call waiting: it is denied, saying why.
      await this.handle
        .executeUpdate(approveUpdate, { args: [{ call: request.id, ...(edited && { arguments: edited }) }] })
        .catch((error: Error) => {
          if (!edited) throw error;
          return this.deny(request.id, `not run: the arguments the MCP client's user gave were refused (${refusalOf(error)})`);
        });
      return;
    }
    const given = typeof answer.content?.reason === 'string' ? answer.content.reason.trim() : '';
    await this.deny(request.id, given ? `${declinedReason}: ${given}` : declinedReason);
  }

  private async deny(call: string, reason: string): Promise<void> {
    await this.handle.executeUpdate(denyUpdate, { args: [{ call, reason }] });
  }

  private canElicit(): boolean {
    const elicitation = this.server.getClientCapabilities()?.elicitation;
    // A client of the first elicitation spec declares `{}`; the SDK reads that as form elicitation.
    return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
  }
}

/** The question, as the CLI asks it: the description (headline, then the preview), and who asked. */
export function question(request: PendingApproval): string {
  const by = request.agents.length > 1 ? ` (asked by ${request.agents.join(' → ')})` : '';
  const [headline, ...preview] = (request.description ?? request.summary).split('\n');
  // A tool's question is asked as it is (`remote_helper asks: Which day?`): there is no call to approve.
  return [request.question ? `${headline}${by}` : `Approve ${headline}?${by}`, ...preview].join('\n');
}

function refusalOf(error: Error): string {
  return (error as { cause?: Error }).cause?.message ?? error.message;
}
