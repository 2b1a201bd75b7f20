import { sniffAttachment } from '../core/attachment-sniff';
import { isAttachmentRef, isImage, type AttachmentPart } from '../core/attachments';
import type { Message } from '../core/messages';
import type { AttachmentStore } from '../storage/attachment-store';
import { ChatRequestError } from './chat-sessions';

/**
 * The bytes of an image or file a chat's messages carry, for the page to show (a thumbnail, a file to download). Only
 * a reference that one of the session's own user messages carries is served, and the caller has already checked that
 * the session is the principal's (web/chat-handler.ts): a reference known from anywhere else (another chat, another
 * person's, a guess) is the same 404 as a reference that does not exist, so refs cannot be probed through this route.
 *
 * The bytes are untrusted: the person who sent them may not be the one who reads them (a shared account, a link), so
 * the browser must never interpret them as anything but what they were checked to be. Every answer carries the sniffed
 * type with `nosniff`, a sandboxing CSP, and, for anything but an image, `Content-Disposition: attachment`, so a PDF
 * (which a browser renders with its own scripting) or a text file is downloaded, never rendered in our origin.
 */

/** The first user message's attachment part whose ref is `ref`, in the conversation as the session holds it. */
export function attachmentOf(conversation: Message[], ref: string): AttachmentPart | undefined {
  if (!isAttachmentRef(ref)) return undefined;
  for (const message of conversation) {
    if (message.role !== 'user') continue;
    const part = message.attachments?.find((each) => each.ref === ref);
    if (part) return part;
  }
  return undefined;
}

/** The part's bytes from the store, checked again (size and type: a part forged to name other bytes is refused). */
export async function attachmentResponse(part: AttachmentPart, store: AttachmentStore, request: Request): Promise<Response> {
  const etag = `"${part.ref}"`;
  // Content-addressed: the same ref is always the same bytes, so the page's cached copy is still right.
  if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers: cacheHeaders(etag) });
  const bytes = await store.get(part.ref);
  return attachmentBytesResponse(part, bytes, request.method === 'HEAD', etag);
}

/** The response for checked bytes; exported for the unit test of its headers and refusals. */
export function attachmentBytesResponse(part: AttachmentPart, bytes: Uint8Array, headOnly = false, etag = `"${part.ref}"`) {
  if (bytes.length !== part.size) {
    throw new ChatRequestError(409, `the stored bytes of ${part.ref} are ${bytes.length}, not the ${part.size} the message says`);
  }
  const sniffed = sniffAttachment(bytes, part.mediaType);
  if (!sniffed.ok) throw new ChatRequestError(409, `the stored bytes of ${part.ref} are refused: ${sniffed.problem}`);
  const image = isImage(sniffed.mediaType);
  const headers: Record<string, string> = {
    ...cacheHeaders(etag),
    'content-type': sniffed.mediaType.startsWith('text/') ? `${sniffed.mediaType}; charset=utf-8` : sniffed.mediaType,
    'content-length': String(bytes.length),
    'x-content-type-options': 'nosniff',
    // Opened on its own (a new tab, a navigation), the answer is a document with no scripts, no plugins, no origin.
    'content-security-policy': "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox",
    'cross-origin-resource-policy': 'same-origin',
    'content-disposition': `${image ? 'inline' : 'attachment'}; ${dispositionName(part.name ?? `attachment${extensionOf(sniffed.mediaType)}`)}`,
  };
  return new Response(headOnly ? null : new Uint8Array(bytes), { status: 200, headers });
}

function cacheHeaders(etag: string): Record<string, string> {
  // Private: the answer is one principal's; no-cache: asked again each time, so the owner check runs each time (a 304).
  return { 'cache-control': 'private, no-cache', etag };
}

/** `filename` in ASCII (anything else, quotes and backslashes as `_`) and `filename*` with the name itself (RFC 6266). */
function dispositionName(name: string): string {
  const ascii = name.replace(/[^A-Za-z0-9._ -]/g, '_');
  return `filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

function extensionOf(mediaType: string): string {
  const subtype = mediaType.split('/')[1] ?? '';
  return { plain: '.txt', markdown: '.md', jpeg: '.jpg' }[subtype] ?? `.${subtype}`;
}
