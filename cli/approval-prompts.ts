import type { WorkflowHandle } from '@temporalio/client';
import type { PendingApproval } from '../core/result';
import { approveUpdate, denyUpdate } from '../workflows/definitions';

/** Asks a person a question; their answer, or undefined when no one answered (the input ended, the turn is over). */
export type Ask = (question: string) => Promise<string | undefined>;

/**
 * Puts each tool call that waits for approval to the person at this terminal,
 * once: `approve write_file "notes.txt" (12 bytes, 1 line)? [y/N]`, after the
 * preview of what it would write. A `y` approves it, any other
 * answer denies it, and no answer (the turn ended meanwhile) decides nothing.
 * Without a person to ask (no terminal), it says how to decide from anywhere
 * else: `agent approve`, `agent deny`.
 */
export class ApprovalPrompter {
  private readonly asked = new Set<string>();

  constructor(
    private readonly handle: WorkflowHandle,
    private readonly ask: Ask | undefined,
    private readonly print: (line: string) => void,
  ) {}

  async consider(pending: PendingApproval[]): Promise<void> {
    for (const request of pending) {
      if (this.asked.has(request.id)) continue;
      this.asked.add(request.id);
      const by = request.agents.length > 1 ? ` (asked by ${request.agents.join(' → ')})` : '';
      // The whole description, built from the arguments that will run: the person decides on what they read here.
      const [headline, ...preview] = (request.description ?? request.summary).split('\n');
      if (!this.ask) {
        const id = this.handle.workflowId;
        this.print(
          [
            `waiting for approval: ${headline}${by}; decide with: agent approve ${id} --call ${request.id}` +
              ` (or agent deny ${id} --call ${request.id} --reason "…")`,
            ...preview,
          ].join('\n'),
        );
        continue;
      }
      // The preview (a file's content) first, so that the question is the last line the person reads.
      if (preview.length > 0) this.print([headline, ...preview].join('\n'));
      const answer = await this.ask(`approve ${headline}?${by} [y/N]`);
      if (answer === undefined) continue;
      const approved = /^y(es)?$/i.test(answer.trim());
      const decided = approved
        ? this.handle.executeUpdate(approveUpdate, { args: [{ call: request.id }] })
        : this.handle.executeUpdate(denyUpdate, { args: [{ call: request.id, reason: 'the person at the terminal said no' }] });
      // Someone may have decided it meanwhile, from another terminal, or it timed out: said, and no error here.
      await decided.then(
        () => this.print(`${approved ? 'approved' : 'denied'} ${request.summary} (call ${request.id})`),
        (error: Error) => this.print(`could not ${approved ? 'approve' : 'deny'} ${request.summary}: ${error.cause instanceof Error ? error.cause.message : error.message}`),
      );
    }
  }
}
