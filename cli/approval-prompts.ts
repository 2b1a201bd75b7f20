import { textAnswerField as answerField } from '../core/tool-question';
import { isPolicyRule } from '../core/approval-policy';
import type { WorkflowHandle } from '@temporalio/client';
import type { PendingApproval } from '../core/result';
import { approveUpdate, denyUpdate } from '../workflows/definitions';
import { conversationCall, editInEditor } from './edit-arguments';
import { isRecord } from '../core/is-record';
import { parseToolArguments } from '../core/tool-arguments';

/** Asks a person a question; their answer, or undefined when no one answered (the input ended, or `signal` withdrew the question). */
export type Ask = (question: string, signal: AbortSignal) => Promise<string | undefined>;

/** Why a question was withdrawn when the run's stream said the call was decided (not by this prompt). */
const settledElsewhere = 'settled elsewhere';

/**
 * Puts each tool call that waits for approval to the person at this terminal,
 * once, as the run's stream tells of it (`approval_requested`):
 * `approve write_file "notes.txt" (12 bytes, 1 line)? [y/N]`, after the
 * preview of what it would write. A `y` approves it, any other answer denies
 * it; a question the run settled meanwhile (decided from another terminal, timed
 * out, the turn over) is withdrawn and decides nothing. Questions come one at a
 * time, in the order the calls asked. Without a person to ask (no terminal), it
 * says how to decide from anywhere else: `agent approve`, `agent deny`.
 *
 * At a terminal a person may also approve with arguments of their own
 * (docs/policy.md, "Edits"): `e` opens the call's arguments in $VISUAL or
 * $EDITOR, and a line of JSON (`{…}`) is taken as the arguments. The run decides
 * the edited call again: if a rule now asks, its request comes back on the
 * stream, marked edited, and is put to the person like any other.
 */
export class ApprovalPrompter {
  private readonly seen = new Set<string>();
  /** The requests not decided yet, each with what withdraws its question. */
  private readonly open = new Map<string, AbortController>();
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly handle: WorkflowHandle,
    private readonly ask: Ask | undefined,
    private readonly print: (line: string) => void,
    /** The terminal's input, paused while an editor has the terminal; absent: no editing offered. */
    private readonly terminal?: { pause(): void; resume(): void },
  ) {}

  /** A tool call waits for approval. */
  requested(request: PendingApproval): void {
    // A call asked again after a person's edit (another rule asks of their arguments) is a new question.
    const key = `${request.id}\0${request.rule ?? ''}\0${request.edited ? 'edited' : ''}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (!this.ask) return this.print(howToDecide(this.handle.workflowId, request));
    const withdrawn = new AbortController();
    this.open.set(request.id, withdrawn);
    // One question at a time; a question that could not be put is said, and the next ones are still asked.
    this.queue = this.queue
      .then(() => this.put(request, withdrawn.signal))
      .catch((error: Error) => this.print(`could not ask about ${request.summary} (call ${request.id}): ${error.message}`));
  }

  /** Call `id` was decided (here, elsewhere, or by the approval timeout): its question, if still open, is withdrawn. */
  decided(id: string): void {
    this.withdraw(id, settledElsewhere);
  }

  /** The turn is over (or the command): every question still open is withdrawn, quietly. */
  withdrawAll(): void {
    for (const id of [...this.open.keys()]) this.withdraw(id, 'over');
  }

  private withdraw(id: string, reason: string): void {
    const question = this.open.get(id);
    if (!question) return;
    this.open.delete(id);
    question.abort(reason);
  }

  private async put(request: PendingApproval, withdrawn: AbortSignal): Promise<void> {
    if (withdrawn.aborted) return;
    const { headline, preview, by } = parts(request);
    // A tool's question that takes one line of text (a remote agent's) is answered with it, not with y or n.
    const field = textAnswerField(request);
    // The preview (a file's content) first, so that the question is the last line the person reads.
    if (preview.length > 0) this.print([headline, ...preview].join('\n'));
    // A subagent's call is in the subagent's conversation: `agent approve --args` edits it. A question has no call to edit.
    const editable = this.terminal !== undefined && !request.id.includes('/') && field === undefined;
    const hint = editable ? ' (e: edit the arguments, or paste them as one line of JSON)' : '';
    const prompt =
      field !== undefined ? `${headline}${by}\nyour answer (an empty line declines):` : `approve ${headline}?${by} [y/N]${hint}`;
    let choice: Choice | undefined;
    while (choice === undefined) {
      const answer = await this.ask!(prompt, withdrawn);
      if (answer === undefined || withdrawn.aborted) return this.notAsking(request, withdrawn);
      choice = field !== undefined ? answered(field, answer.trim()) : await this.choose(answer.trim(), request, editable);
      if (withdrawn.aborted) return this.notAsking(request, withdrawn);
    }
    // Ours to decide now: the decision the stream tells next is this one, not news.
    this.open.delete(request.id);
    const { approved, edited } = choice;
    const decided = approved
      ? this.handle.executeUpdate(approveUpdate, {
          args: [{ call: request.id, ...(edited !== undefined && { arguments: edited }) }],
        })
      : this.handle.executeUpdate(denyUpdate, { args: [{ call: request.id, reason: 'the person at the terminal said no' }] });
    // Someone may have decided it meanwhile, from another terminal, or it timed out: said, and no error here.
    await decided.then(
      () =>
        this.print(
          `${approved ? 'approved' : 'denied'} ${request.summary} (call ${request.id})${edited !== undefined ? ` with your ${field !== undefined ? 'answer' : 'arguments'}` : ''}`,
        ),
      (error: Error) =>
        this.print(
          `could not ${approved ? 'approve' : 'deny'} ${request.summary}: ${error.cause instanceof Error ? error.cause.message : error.message}`,
        ),
    );
  }

  /** What an answer decides; undefined when the question is to be asked again (an edit that did not happen). */
  private async choose(answer: string, request: PendingApproval, editable: boolean): Promise<Choice | undefined> {
    if (/^y(es)?$/i.test(answer)) return { approved: true };
    if (!editable) return { approved: false };
    if (answer.startsWith('{')) return this.edited(answer);
    if (!/^e(dit)?$/i.test(answer)) return { approved: false };
    try {
      const call = await conversationCall(this.handle, request.id);
      if (!call) {
        this.print(`call ${request.id} is not in the conversation yet: answer again`);
        return undefined;
      }
      return this.edited(await editInEditor(call, this.terminal));
    } catch (error) {
      this.print(`nothing was approved: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  /**
   * The person's arguments, when they are a JSON object; otherwise the question is asked again. A typo costs no
   * decision: the run's validator would refuse them too, but the question would be gone. The run checks them again.
   */
  private edited(text: string): Choice | undefined {
    const parsed = parseToolArguments(text);
    const problem = !parsed.ok ? parsed.problem : !isRecord(parsed.value) ? 'are not a JSON object' : undefined;
    if (problem === undefined) return { approved: true, edited: text };
    this.print(`nothing was approved: those arguments ${problem}; answer again`);
    return undefined;
  }

  private notAsking(request: PendingApproval, withdrawn: AbortSignal): void {
    if (withdrawn.reason === settledElsewhere)
      this.print(`no longer asking: ${request.summary} (call ${request.id}) was decided elsewhere`);
  }
}

/** A person's answer: approve (with their own arguments, when they edited them) or deny. */
interface Choice {
  approved: boolean;
  edited?: string;
}

/** A line typed in answer to a tool's question: the answer, as the approval's arguments; an empty line declines. */
function answered(field: string, line: string): Choice {
  return line === '' ? { approved: false } : { approved: true, edited: JSON.stringify({ [field]: line }) };
}

/** The one text field a tool's question takes, when that is all it asks for; undefined for a call to approve. */
function textAnswerField(request: PendingApproval): string | undefined {
  return request.question ? answerField(request.question.schema) : undefined;
}

/** For a run followed without a terminal: the request, and the commands that decide it from anywhere. */
function howToDecide(workflowId: string, request: PendingApproval): string {
  const { headline, preview, by } = parts(request);
  const field = textAnswerField(request);
  const answer = field !== undefined ? ` --args '{"${field}": "…"}'` : '';
  return [
    `waiting for approval: ${headline}${by}; decide with: agent approve ${workflowId} --call ${request.id}${answer}` +
      ` (or agent deny ${workflowId} --call ${request.id} --reason "…")`,
    ...preview,
  ].join('\n');
}

/** The description's headline and preview, and which agents asked when a subagent did. */
function parts(request: PendingApproval): { headline: string; preview: string[]; by: string } {
  // The whole description, built from the arguments that will run: the person decides on what they read here.
  const [headline, ...preview] = (request.description ?? request.summary).split('\n');
  const agents = request.agents.length > 1 ? ` (asked by ${request.agents.join(' → ')})` : '';
  // The policy's rule that asks, by the name its author gave it (the default policy's own go unnamed, as before).
  const edited = request.edited ? ', edited arguments' : '';
  // A tool's question names no rule: no policy asked, the tool did (its headline says so).
  const rule = request.question
    ? ''
    : isPolicyRule(request.rule)
      ? ` (rule ${request.rule}${edited})`
      : request.edited
        ? ' (edited arguments)'
        : '';
  return { headline, preview, by: `${rule}${agents}` };
}
