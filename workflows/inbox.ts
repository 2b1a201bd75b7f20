import { ApplicationFailure, condition } from '@temporalio/workflow';
import { failureTypes } from '../core/errors';
import type { CarriedInbox } from '../core/input';
import type { MessageReply, TurnReply } from '../core/result';

export interface WaitingMessage {
  ticket: number;
  content: string;
}

type Outcome = { reply: TurnReply } | { refusal: { message: string; type: string } };

// Outcomes nobody has collected yet (their caller lost its connection, or asks again after a hand-over)
// are kept this many at most, so a run's carried state stays small.
const uncollectedKept = 100;

/**
 * A session's user messages. Each sendMessage update gets a ticket and waits
 * for its outcome: the reply, or a refusal saying why it was not answered. When
 * the run continues as new, every caller still waiting is told `pending` with
 * its ticket and asks the next run (awaitReply), which carries the messages on;
 * so no update handler is ever left running when a run ends, and no reply is lost.
 */
export class Inbox {
  private nextTicket: number;
  readonly waiting: WaitingMessage[];
  /** The message whose turn is in progress. */
  current: number | undefined;
  private readonly outcomes: Map<number, Outcome>;
  private handingOver = false;
  /** Why no more messages are accepted, once the session is finishing. */
  closedBecause: string | undefined;
  /** Updates this run has accepted: Temporal allows 2,000 per run. */
  updatesThisRun = 0;

  constructor(carried?: CarriedInbox) {
    this.nextTicket = carried?.nextTicket ?? 0;
    this.waiting = [...(carried?.waiting ?? [])];
    this.current = carried?.current;
    this.outcomes = new Map(
      (carried?.settled ?? []).map((settled) => [
        settled.ticket,
        'reply' in settled ? { reply: settled.reply } : { refusal: settled.refusal },
      ]),
    );
  }

  /** A new message, queued behind the others; returns its ticket. */
  accept(content: string): number {
    const ticket = this.nextTicket++;
    this.waiting.push({ ticket, content });
    this.updatesThisRun++;
    return ticket;
  }

  /** True for a ticket this session has issued and not yet delivered the outcome of. */
  knows(ticket: number): boolean {
    return this.current === ticket || this.outcomes.has(ticket) || this.waiting.some((message) => message.ticket === ticket);
  }

  /** Waits for a message's outcome: the reply, a refusal (thrown as the update's failure), or `pending` on a hand-over. */
  async outcome(ticket: number): Promise<MessageReply> {
    await condition(() => this.outcomes.has(ticket) || this.handingOver);
    const outcome = this.outcomes.get(ticket);
    if (!outcome) return { status: 'pending', ticket };
    this.outcomes.delete(ticket);
    if ('reply' in outcome) return outcome.reply;
    throw ApplicationFailure.create({ type: outcome.refusal.type, message: outcome.refusal.message, nonRetryable: true });
  }

  /** The next message to answer, which becomes the current one. */
  takeNext(): WaitingMessage | undefined {
    const next = this.waiting.shift();
    this.current = next?.ticket;
    return next;
  }

  answer(ticket: number, reply: TurnReply): void {
    this.settle(ticket, { reply });
  }

  refuse(ticket: number, message: string, type: string = failureTypes.messageNotAnswered): void {
    this.settle(ticket, { refusal: { message, type } });
  }

  /** Settles every message still waiting (and the current one), so no caller is left hanging. */
  settleAllWaiting(outcome: (ticket: number) => Outcome): void {
    if (this.current !== undefined) this.settle(this.current, outcome(this.current));
    for (const message of this.waiting.splice(0)) this.settle(message.ticket, outcome(message.ticket));
  }

  /** From now on the validator refuses new messages, with this reason. */
  close(reason: string): void {
    this.closedBecause ??= reason;
  }

  /** Tells every waiting caller `pending`; carry() then hands the messages to the next run. */
  startHandOver(): void {
    this.handingOver = true;
  }

  carry(): CarriedInbox {
    return {
      nextTicket: this.nextTicket,
      waiting: this.waiting,
      current: this.current,
      settled: [...this.outcomes].map(([ticket, outcome]) => ({ ticket, ...outcome })),
    };
  }

  private settle(ticket: number, outcome: Outcome): void {
    if (this.current === ticket) this.current = undefined;
    this.outcomes.set(ticket, outcome);
    if (this.outcomes.size > uncollectedKept) this.outcomes.delete(this.outcomes.keys().next().value!);
  }
}
