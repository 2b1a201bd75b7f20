import { ApplicationFailure, condition } from '@temporalio/workflow';
import type { AttachmentPart } from '../core/attachments';
import { failureTypes } from '../core/errors';
import type { CarriedInbox } from '../core/input';
import type { MessageReply, TurnReply } from '../core/result';

export interface WaitingMessage {
  ticket: number;
  content: string;
  /** Images and files sent with it, by reference (left out when none: what a run carried before attachments). */
  attachments?: AttachmentPart[];
}

/**
 * The patch under which the inbox settles the promise each caller waits on itself (Inbox.outcome). Runs recorded
 * before it waited with a `condition`, which a cancelled run rejects at once; they replay that way.
 */
export const inboxSettlesCallersPatch = 'inbox-settles-callers';

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
 *
 * A steering message (the steer update) does not queue: the turn in progress takes it at its next iteration
 * (`takeSteering`), and its ticket joins that turn's, answered with the turn's reply. One the turn did not take
 * before it ended is the next message answered (`takeNext`), ahead of the queue, so nothing is lost.
 */
export class Inbox {
  private nextTicket: number;
  readonly waiting: WaitingMessage[];
  /** Steering messages the turn in progress has not taken yet, in the order they came. */
  readonly steering: WaitingMessage[];
  /** The message whose turn is in progress. */
  current: number | undefined;
  /** Steering messages the turn in progress took: they get its reply (or its refusal). */
  private joined: number[];
  private readonly outcomes: Map<number, Outcome>;
  /** The update handlers waiting for an outcome, in the order they began to wait. */
  private waiters: Array<{ ticket: number; wake: () => void }> = [];
  private handingOver = false;
  /** Why no more messages are accepted, once the session is finishing. */
  closedBecause: string | undefined;
  /** Updates this run has accepted: Temporal allows 2,000 per run. */
  updatesThisRun = 0;

  /**
   * @param settlesCallers whether outcome() waits on a promise the inbox settles (patched(inboxSettlesCallersPatch))
   *   or, as runs recorded before it did, on a condition.
   */
  constructor(
    carried?: CarriedInbox,
    private readonly settlesCallers = true,
  ) {
    this.nextTicket = carried?.nextTicket ?? 0;
    this.waiting = [...(carried?.waiting ?? [])];
    this.steering = [...(carried?.steering ?? [])];
    this.current = carried?.current;
    this.joined = [...(carried?.joined ?? [])];
    this.outcomes = new Map(
      (carried?.settled ?? []).map((settled) => [
        settled.ticket,
        'reply' in settled ? { reply: settled.reply } : { refusal: settled.refusal },
      ]),
    );
  }

  /** A new message, queued behind the others; returns its ticket. */
  accept(content: string, attachments?: AttachmentPart[]): number {
    const ticket = this.nextTicket++;
    this.waiting.push({ ticket, content, ...(attachments?.length && { attachments }) });
    this.updatesThisRun++;
    return ticket;
  }

  /** A steering message, for the turn in progress to take at its next iteration; returns its ticket. */
  acceptSteering(content: string, attachments?: AttachmentPart[]): number {
    const ticket = this.nextTicket++;
    this.steering.push({ ticket, content, ...(attachments?.length && { attachments }) });
    this.updatesThisRun++;
    return ticket;
  }

  /** Whether a message waits to be answered: queued, or steering that no turn has taken. */
  hasWaiting(): boolean {
    return this.waiting.length > 0 || this.steering.length > 0;
  }

  /** True for a ticket this session has issued and not yet delivered the outcome of. */
  knows(ticket: number): boolean {
    const waits = (message: WaitingMessage) => message.ticket === ticket;
    return (
      this.current === ticket ||
      this.joined.includes(ticket) ||
      this.outcomes.has(ticket) ||
      this.waiting.some(waits) ||
      this.steering.some(waits)
    );
  }

  /**
   * Waits for a message's outcome: the reply, a refusal (thrown as the update's failure), or `pending` on a hand-over.
   * A promise the inbox settles itself (wakeWaiters), not a `condition`: that was four promises (the SDK's promise
   * hook takes a stack trace of each) and a condition the SDK checked after every activation; this is one. The
   * waiters wake in the order they began to wait, as conditions are checked. A run that ends (cancelled, failed,
   * finished) settles every message it holds first (settleAllWaiting), so no handler is left waiting: a caller of a
   * cancelled session learns that the run was cancelled before its message was answered (with a condition, the
   * cancellation itself failed the update).
   */
  outcome(ticket: number): Promise<MessageReply> {
    if (!this.settlesCallers)
      return condition(() => this.outcomes.has(ticket) || this.handingOver).then(() => this.collect(ticket));
    return new Promise<MessageReply>((resolve, reject) => {
      const wake = () => {
        try {
          resolve(this.collect(ticket));
        } catch (error) {
          reject(error);
        }
      };
      this.waiters.push({ ticket, wake });
      this.wakeWaiters();
    });
  }

  private collect(ticket: number): MessageReply {
    const outcome = this.outcomes.get(ticket);
    if (!outcome) return { status: 'pending', ticket };
    this.outcomes.delete(ticket);
    if ('reply' in outcome) return outcome.reply;
    throw ApplicationFailure.create({ type: outcome.refusal.type, message: outcome.refusal.message, nonRetryable: true });
  }

  /**
   * Hands each waiting update handler its outcome once there is one (or `pending`, once the run hands over). All that
   * are due are found before any collects, as conditions were: two callers of one ticket both wake, the second to
   * `pending`.
   */
  private wakeWaiters(): void {
    const due = this.waiters.filter(({ ticket }) => this.outcomes.has(ticket) || this.handingOver);
    if (due.length === 0) return;
    this.waiters = this.waiters.filter((waiter) => !due.includes(waiter));
    for (const { wake } of due) wake();
  }

  /**
   * The next message to answer, which becomes the current one: a steering message the last turn ended without
   * taking comes first (it was meant for the work in progress), then the queue.
   */
  takeNext(): WaitingMessage | undefined {
    const next = this.steering.shift() ?? this.waiting.shift();
    this.current = next?.ticket;
    return next;
  }

  /** The steering messages that wait, taken by the turn in progress: each is answered with that turn's reply. */
  takeSteering(): WaitingMessage[] {
    const taken = this.steering.splice(0);
    this.joined.push(...taken.map((message) => message.ticket));
    return taken;
  }

  /** The turn answered: its message (`ticket`, none for a run's prompt) and the steering messages it took. */
  answer(ticket: number | undefined, reply: TurnReply): void {
    for (const each of this.turnTickets(ticket)) this.settle(each, { reply });
    this.wakeWaiters();
  }

  /** The turn failed: its message and the steering messages it took are refused with its reason. */
  refuse(ticket: number | undefined, message: string, type: string = failureTypes.messageNotAnswered): void {
    for (const each of this.turnTickets(ticket)) this.settle(each, { refusal: { message, type } });
    this.wakeWaiters();
  }

  /** Settles every message still waiting (and the current turn's), so no caller is left hanging. */
  settleAllWaiting(outcome: (ticket: number) => Outcome): void {
    for (const ticket of this.turnTickets(this.current)) this.settle(ticket, outcome(ticket));
    for (const message of [...this.steering.splice(0), ...this.waiting.splice(0)])
      this.settle(message.ticket, outcome(message.ticket));
    this.wakeWaiters();
  }

  /** From now on the validator refuses new messages, with this reason. */
  close(reason: string): void {
    this.closedBecause ??= reason;
  }

  /** Tells every waiting caller `pending`; carry() then hands the messages to the next run. */
  startHandOver(): void {
    this.handingOver = true;
    this.wakeWaiters();
  }

  carry(): CarriedInbox {
    return {
      nextTicket: this.nextTicket,
      waiting: this.waiting,
      current: this.current,
      settled: [...this.outcomes].map(([ticket, outcome]) => ({ ticket, ...outcome })),
      // Left out when empty, so that a session that never steered carries what it carried before.
      ...(this.steering.length > 0 && { steering: this.steering }),
      ...(this.joined.length > 0 && { joined: this.joined }),
    };
  }

  /** The tickets a turn's outcome settles: its own message's and those of the steering messages it took. */
  private turnTickets(ticket: number | undefined): number[] {
    const tickets = [...(ticket === undefined ? [] : [ticket]), ...this.joined];
    this.joined = [];
    return tickets;
  }

  private settle(ticket: number, outcome: Outcome): void {
    if (this.current === ticket) this.current = undefined;
    this.outcomes.set(ticket, outcome);
    if (this.outcomes.size > uncollectedKept) this.outcomes.delete(this.outcomes.keys().next().value!);
  }
}
