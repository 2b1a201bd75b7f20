import { failureTypes } from '../core/errors';

/**
 * The refusal a worker built before attachments gives a message that carries some: its validator takes only a
 * string, so the `{ content, attachments }` object sendMessage sends is "empty" to it, whatever the text. Today's
 * validator says the same words only of text that is empty, so the same words for text that is not can only come
 * from an older worker. Nothing entered the conversation. Workers are upgraded before clients (docs/attachments.md,
 * "Workers and clients of different builds"); this says so instead of the misleading words.
 */
export function olderWorkerRefusal(
  refusal: { message: string; type: string | undefined },
  text: string,
  attachmentCount: number,
): string | undefined {
  const olderWorkersWords = refusal.type === failureTypes.messageRefused && refusal.message === 'message must not be empty';
  if (!olderWorkersWords || attachmentCount === 0 || !text.trim()) return undefined;
  return (
    `the session's worker predates attachments: it refused this message and its ${attachmentCount} attachment(s) ` +
    '(it takes text only; nothing was added to the conversation). Upgrade the workers, then send it again'
  );
}
