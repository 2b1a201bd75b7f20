import { QueryNotRegisteredError, type WorkflowHandle } from '@temporalio/client';
import type { Message } from '../core/messages';
import type { TranscriptStore } from '../storage/transcript/transcript-store';
import { agentStores } from '../storage/stores';
import { conversationQuery, messagesQuery } from '../workflows/definitions';

/**
 * A run's whole conversation, read so that reading writes nothing. The worker's
 * answer to a query is a payload like any other: over the external-storage
 * threshold it is written to the bucket, so a large `messages` answer would add
 * an object at every read of a closed run. Instead the run names its stored
 * transcript (`conversation`, small), and the client reads that from the store
 * the workers wrote it to. A client that cannot read it (another machine's
 * directory, a key it lacks), or a run whose worker predates the query, is
 * answered by `messages`.
 */
export async function readConversation(
  handle: WorkflowHandle,
  transcripts: () => TranscriptStore = () => agentStores().transcripts,
): Promise<Message[]> {
  const snapshot = await handle.query(conversationQuery).catch((error: unknown) => {
    // Only a worker that predates the query is answered the old way; any other error (no worker yet) is the caller's.
    if (error instanceof QueryNotRegisteredError) return undefined;
    throw error;
  });
  if (!snapshot) return handle.query(messagesQuery);
  if (!snapshot.transcript) return snapshot.messages;
  const earlier = await Promise.resolve()
    .then(() => transcripts().load(snapshot.transcript!.id))
    .catch(() => undefined);
  if (!earlier || earlier.length !== snapshot.transcript.length) return handle.query(messagesQuery);
  return [...earlier, ...snapshot.messages];
}
