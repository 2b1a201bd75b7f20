// `ai`'s own client, run as a separate Node process because the package is ESM-only and jest here loads CommonJS.
// Reads one request from argv (JSON) and prints one JSON line: every chunk received (each checked with `ai`'s own
// uiMessageChunkSchema), the UIMessage built from them as useChat builds it, or the error.
import { DefaultChatTransport, readUIMessageStream, uiMessageChunkSchema } from 'ai';
import { safeValidateTypes } from '@ai-sdk/provider-utils';

const ask = JSON.parse(process.argv[2]);
const transport = new DefaultChatTransport({ api: ask.api, headers: { 'x-user': ask.user } });
const abort = new AbortController();
if (ask.abortAfterChunks !== undefined) ask.abortAfterChunks = Number(ask.abortAfterChunks);

try {
  const stream =
    ask.kind === 'resume'
      ? await transport.reconnectToStream({ chatId: ask.chatId })
      : await transport.sendMessages({
          chatId: ask.chatId,
          messages: ask.messages,
          trigger: 'submit-message',
          messageId: ask.messageId,
          body: ask.body,
          abortSignal: abort.signal,
        });
  if (stream === null) {
    console.log(JSON.stringify({ none: true }));
  } else {
    const chunks = [];
    const invalid = [];
    const [forChunks, forMessage] = stream.tee();
    const reading = (async () => {
      for await (const chunk of forChunks) {
        chunks.push(chunk);
        const checked = await safeValidateTypes({ value: chunk, schema: uiMessageChunkSchema });
        if (!checked.success) invalid.push(chunk);
        if (ask.abortAfterChunks !== undefined && chunks.length >= ask.abortAfterChunks) abort.abort();
      }
    })().catch(() => undefined);
    let message;
    try {
      for await (const built of readUIMessageStream({ stream: forMessage, message: ask.lastMessage })) message = built;
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    }
    await reading;
    console.log(JSON.stringify({ chunks, invalid, message, aborted: abort.signal.aborted }));
  }
} catch (error) {
  console.log(JSON.stringify({ error: String(error?.message ?? error), status: error?.statusCode }));
}
