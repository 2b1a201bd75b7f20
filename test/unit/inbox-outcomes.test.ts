import { ApplicationFailure } from '@temporalio/workflow';
import type { TurnReply } from '../../core/result';
import { Inbox } from '../../workflows/inbox';

// The promise each sendMessage/awaitReply handler waits on, settled by the inbox itself (workflows/inbox.ts): plain
// promises, so the cases a condition used to cover are checked here without a server.
const reply = (answer: string): TurnReply => ({
  answer,
  status: 'completed',
  iterations: 1,
  usage: { inputTokens: 1, outputTokens: 1 },
  agent: 'default',
});

describe("a session's callers wait for their messages' outcomes", () => {
  it('answers the caller of the turn, and a second caller of the same ticket is told pending, as with a condition', async () => {
    const inbox = new Inbox();
    const ticket = inbox.accept('hello');
    inbox.takeNext();
    const first = inbox.outcome(ticket);
    const second = inbox.outcome(ticket);
    inbox.answer(ticket, reply('hi'));
    expect(await first).toEqual(reply('hi'));
    expect(await second).toEqual({ status: 'pending', ticket });
  });

  it('answers at once a caller who asks after the outcome is in, and only once', async () => {
    const inbox = new Inbox();
    const ticket = inbox.accept('hello');
    inbox.takeNext();
    inbox.answer(ticket, reply('hi'));
    expect(await inbox.outcome(ticket)).toEqual(reply('hi'));
    expect(inbox.knows(ticket)).toBe(false);
  });

  it('fails the caller of a refused turn with the refusal, as the update’s failure', async () => {
    const inbox = new Inbox();
    const ticket = inbox.accept('hello');
    inbox.takeNext();
    const waiting = inbox.outcome(ticket);
    inbox.refuse(ticket, 'the provider refused it', 'ProviderRejectedRequest');
    const failure = await waiting.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'ProviderRejectedRequest', message: 'the provider refused it', nonRetryable: true });
  });

  it('tells every waiting caller pending on a hand-over, in the order they began to wait, and leaves none waiting', async () => {
    const inbox = new Inbox();
    const tickets = [inbox.accept('a'), inbox.accept('b'), inbox.accept('c')];
    inbox.takeNext();
    const woken: number[] = [];
    const waits = [tickets[2], tickets[0], tickets[1]].map((ticket) =>
      inbox.outcome(ticket).then((outcome) => {
        woken.push(ticket);
        return outcome;
      }),
    );
    inbox.startHandOver();
    expect(await Promise.all(waits)).toEqual(
      [tickets[2], tickets[0], tickets[1]].map((ticket) => ({ status: 'pending', ticket })),
    );
    expect(woken).toEqual([tickets[2], tickets[0], tickets[1]]);
    // What the next run carries still holds every message: a pending caller asks it again.
    expect(inbox.carry().waiting.map((message) => message.ticket)).toEqual([tickets[1], tickets[2]]);
    expect(inbox.carry().current).toBe(tickets[0]);
  });

  it('settles every caller when the run ends with messages queued', async () => {
    const inbox = new Inbox();
    const current = inbox.accept('a');
    const queued = inbox.accept('b');
    inbox.takeNext();
    const waits = [inbox.outcome(current), inbox.outcome(queued)].map((wait) => wait.catch((error: Error) => error.message));
    inbox.settleAllWaiting(() => ({ refusal: { message: 'the run was cancelled', type: 'MessageNotAnswered' } }));
    expect(await Promise.all(waits)).toEqual(['the run was cancelled', 'the run was cancelled']);
  });
});
