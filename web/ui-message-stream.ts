import type { StreamEvent } from '../core/stream-events';
import { UiMessageTranslator, type StartAfter, type UiMessageChunk } from './ui-message-chunks';

/** What a turn's response reads: the session's follow (web/chat-sessions.ts ChatSession). */
export interface TurnSource {
  follow(from: number, onEvent: (event: StreamEvent, offset: number) => void, signal: AbortSignal): Promise<void>;
}

export interface TurnChunksOptions {
  source: TurnSource;
  /** The first stream offset to read. */
  from: number;
  startAfter: StartAfter;
  /** The request's signal: a client that goes away (stop(), a reload) only stops the follow; the turn goes on. */
  signal?: AbortSignal;
  /** How long to wait after an approval request for the others of the same tool round before the response pauses. */
  approvalSettleMs?: number;
}

/**
 * One response's chunks: the turn's events as the follow delivers them, translated, until the turn ends or waits for
 * a person. The follow is open only while this response is, so a session nobody watches is polled by nobody.
 */
export function turnChunks(options: TurnChunksOptions): ReadableStream<UiMessageChunk> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const settleMs = options.approvalSettleMs ?? 300;
  // Set when the stream is closed here or cancelled by its reader (a reload, stop()): after either, close() throws.
  let closed = false;
  return new ReadableStream<UiMessageChunk>({
    start(controller) {
      const translator = new UiMessageTranslator(options.startAfter);
      let pauseTimer: ReturnType<typeof setTimeout> | undefined;
      const close = () => {
        if (closed) return;
        closed = true;
        clearTimeout(pauseTimer);
        options.signal?.removeEventListener('abort', onAbort);
        stop.abort();
        controller.close();
      };
      const send = (chunks: UiMessageChunk[]) => {
        for (const chunk of chunks) controller.enqueue(chunk);
      };
      options.source
        .follow(
          options.from,
          (event) => {
            if (closed) return;
            send(translator.translate(event));
            if (translator.ended) return close();
            clearTimeout(pauseTimer);
            // Waiting for a person: the response ends, the message stays open for the approval response's request.
            if (translator.waitingApprovals > 0) {
              pauseTimer = setTimeout(() => {
                if (closed) return;
                send(translator.pause());
                close();
              }, settleMs);
            }
          },
          stop.signal,
        )
        .then(
          () => {
            if (closed || options.signal?.aborted) return close();
            send(translator.abandon('the session ended before the turn finished'));
            close();
          },
          (error: Error) => {
            if (closed) return;
            send(translator.abandon(`following the session failed: ${error.message}`));
            close();
          },
        );
    },
    cancel() {
      closed = true;
      stop.abort();
    },
  });
}

/** The protocol's headers (`ai`'s UI_MESSAGE_STREAM_HEADERS): useChat's default transport checks none, proxies need them. */
export const uiMessageStreamHeaders = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
} as const;

/**
 * One server-sent event per chunk: `data: <JSON>` and a blank line, then `data: [DONE]`. JSON escapes every CR and
 * LF the model wrote, so no text, tool name or id can end a line and start a frame of its own; U+2028 and U+2029
 * (line breaks to some JavaScript parsers, not to SSE) are escaped too.
 */
export function sseFrame(chunk: UiMessageChunk): string {
  return `data: ${JSON.stringify(chunk)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')}\n\n`;
}

export function uiMessageStreamResponse(chunks: ReadableStream<UiMessageChunk>): Response {
  const encoder = new TextEncoder();
  const body = chunks.pipeThrough(
    new TransformStream<UiMessageChunk, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(encoder.encode(sseFrame(chunk)));
      },
      flush(controller) {
        controller.enqueue(encoder.encode('data: [DONE]\n\n'));
      },
    }),
  );
  return new Response(body, { headers: uiMessageStreamHeaders });
}
