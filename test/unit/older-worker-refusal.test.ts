import { failureTypes } from '../../core/errors';
import { olderWorkerRefusal } from '../../client/older-worker-refusal';

// A worker built before attachments (its validator took a string only: `typeof content !== 'string'`) refuses the
// `{ content, attachments }` that sendMessage sends with these words, whatever the text.
const olderWorkers = { message: 'message must not be empty', type: failureTypes.messageRefused };

it('says the worker predates attachments when it calls a message with text and attachments empty', () => {
  expect(olderWorkerRefusal(olderWorkers, 'What is in this photo?', 2)).toBe(
    "the session's worker predates attachments: it refused this message and its 2 attachment(s) (it takes text " +
      'only; nothing was added to the conversation). Upgrade the workers, then send it again',
  );
});

it.each([
  ['the text is empty (today’s workers refuse it in the same words)', olderWorkers, '  ', 1],
  ['the message has no attachments (sent as the bare string every build takes)', olderWorkers, 'hi', 0],
  [
    'another refusal',
    { message: 'the session is ending and takes no more messages', type: failureTypes.messageRefused },
    'hi',
    1,
  ],
  ['a failed turn, not a refusal', { message: 'message must not be empty', type: 'ProviderRejectedRequest' }, 'hi', 1],
] as const)('leaves the refusal as it is when %s', (_case, refusal, text, count) => {
  expect(olderWorkerRefusal(refusal, text, count)).toBeUndefined();
});
