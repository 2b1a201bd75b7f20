import { followTurn, type StartAfter, type TurnSource } from './turn-response';
import { UiMessageTranslator, type UiMessageChunk } from './ui-message-chunks';

export type { TurnSource } from './turn-response';

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
 * a person (web/turn-response.ts, the life AG-UI's runs share).
 */
export function turnChunks(options: TurnChunksOptions): ReadableStream<UiMessageChunk> {
  return followTurn(new UiMessageTranslator(options.startAfter), options);
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
