import type { AttachmentInput } from '../client/attachment-input';
import { attachmentBounds } from '../core/attachments';
import { isRecord } from '../core/is-record';
import { ChatRequestError } from './chat-sessions';

/**
 * The images and files a web client sends with a message, as bytes to check and store (client/attachment-input.ts):
 * useChat's `file` parts (a data URL) and AG-UI's `image`/`document` parts with a `data` source (and the older
 * `binary` content). Only bytes in the request are taken: a URL or a provider's file id is never fetched on the
 * client's behalf (a request that names one is refused, not passed on), so the server reads nothing it was pointed at.
 */

/** Base64 text, checked in linear time (a pattern with a repeated group overflows the stack on megabytes). */
function isBase64(text: string): boolean {
  if (text.length % 4 !== 0 || /[^A-Za-z0-9+/=]/.test(text)) return false;
  const padding = text.indexOf('=');
  return padding < 0 || (padding >= text.length - 2 && /^=+$/.test(text.slice(padding)));
}
const dataUrlPattern = /^data:([a-z]+\/[a-z0-9.+-]+)(?:;[a-z-]+=[^;,]*)*;base64,(.*)$/is;

function bytesOf(base64: string, where: string): Uint8Array {
  if (!isBase64(base64)) throw new ChatRequestError(400, `${where}: the data is not base64`);
  return Buffer.from(base64, 'base64');
}

/** Counted before any is decoded: a request of a thousand parts is refused without decoding one. */
function assertCount(count: number): void {
  if (count > attachmentBounds.maxFiles)
    throw new ChatRequestError(422, `${count} files; a message may carry at most ${attachmentBounds.maxFiles}`);
}

/** useChat's `{ type: 'file', mediaType, url: 'data:…;base64,…', filename? }` parts of the newest user message. */
export function useChatFiles(parts: unknown[]): AttachmentInput[] {
  const files = parts.filter((part) => isRecord(part) && part.type === 'file') as Array<Record<string, unknown>>;
  assertCount(files.length);
  return files.map((part, index) => {
    const where = `file part ${index + 1}`;
    const match = typeof part.url === 'string' ? dataUrlPattern.exec(part.url) : null;
    if (!match) throw new ChatRequestError(400, `${where}: only a data URL is taken (a file by URL is not fetched)`);
    const mediaType = typeof part.mediaType === 'string' ? part.mediaType : match[1]!;
    return {
      data: bytesOf(match[2]!, where),
      mediaType,
      ...(typeof part.filename === 'string' && { name: part.filename }),
    };
  });
}

/** AG-UI's `image` and `document` parts with a `data` source, and `binary` content with `data`, of the user message. */
export function agUiFiles(content: unknown): AttachmentInput[] {
  if (!Array.isArray(content)) return [];
  const files = content.filter(
    (part) => isRecord(part) && (part.type === 'image' || part.type === 'document' || part.type === 'binary'),
  ) as Array<Record<string, unknown>>;
  assertCount(files.length);
  return files.map((part, index) => {
    const where = `${String(part.type)} part ${index + 1}`;
    if (part.type === 'binary') {
      if (typeof part.data !== 'string' || typeof part.mimeType !== 'string')
        throw new ChatRequestError(400, `${where}: only inline data is taken (a url or id is not fetched)`);
      return {
        data: bytesOf(part.data, where),
        mediaType: part.mimeType,
        ...(typeof part.filename === 'string' && { name: part.filename }),
      };
    }
    const source = isRecord(part.source) ? part.source : {};
    if (source.type !== 'data' || typeof source.value !== 'string' || typeof source.mimeType !== 'string')
      throw new ChatRequestError(400, `${where}: only a data source is taken (a url or file source is not fetched)`);
    const name = isRecord(part.metadata) && typeof part.metadata.filename === 'string' ? part.metadata.filename : undefined;
    return { data: bytesOf(source.value, where), mediaType: source.mimeType, ...(name && { name }) };
  });
}
