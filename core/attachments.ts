/**
 * Images and files in user messages (docs/attachments.md). The bytes never enter workflow history: they are stored by
 * the client in the attachment store (storage/attachment-store.ts), and a message carries an `AttachmentPart`, the
 * reference to them. The model activity loads them and each provider converts them, at the provider call only.
 *
 * Pure: no I/O and no Node built-ins, so workflow code may name these types and the bounds.
 */

/** The media types an attachment may have: images, PDF and UTF-8 text. Anything else is refused. */
export const attachmentMediaTypes = [
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
  'application/pdf',
  'text/plain',
  'text/markdown',
] as const;
export type AttachmentMediaType = (typeof attachmentMediaTypes)[number];

export const imageMediaTypes: readonly AttachmentMediaType[] = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];
export const textMediaTypes: readonly AttachmentMediaType[] = ['text/plain', 'text/markdown'];

const mebibyte = 1024 * 1024;

/** How much one message may carry. A provider may take less (its own limits, checked before each call). */
export const attachmentBounds = {
  /** Bytes of one file. */
  maxFileBytes: 20 * mebibyte,
  /** Files in one message. */
  maxFiles: 10,
  /** Bytes of all of one message's files together. */
  maxMessageBytes: 32 * mebibyte,
  /** Characters of a file's name, once cleaned (attachmentName). */
  maxNameChars: 255,
} as const;

/**
 * A reference to stored bytes, as a message carries it: the content-addressed name the store gave them (`ref`), what
 * they are (checked against the bytes themselves: sniffAttachment) and how many there are.
 */
export interface AttachmentPart {
  type: 'attachment';
  /** The store's name for the bytes: the SHA-256 of the content, or its keyed hash and key id when encrypted. */
  ref: string;
  mediaType: AttachmentMediaType;
  size: number;
  /** The file's name as the user gave it (its last path component, cleaned), shown to the model and in `agent show`. */
  name?: string;
}

/** A plain store name (SHA-256 hex), or a sealed one (`<HMAC-SHA-256 hex>.<key id>`, storage/attachment-store.ts). */
const refPattern = /^[0-9a-f]{64}(\.[A-Za-z0-9._-]{1,64})?$/;

export function isAttachmentRef(ref: unknown): ref is string {
  return typeof ref === 'string' && refPattern.test(ref);
}

export function isAttachmentMediaType(value: unknown): value is AttachmentMediaType {
  return typeof value === 'string' && (attachmentMediaTypes as readonly string[]).includes(value);
}

export function isImage(mediaType: string): boolean {
  return (imageMediaTypes as readonly string[]).includes(mediaType);
}

export function isText(mediaType: string): boolean {
  return (textMediaTypes as readonly string[]).includes(mediaType);
}

const byExtension: Record<string, AttachmentMediaType> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  pdf: 'application/pdf',
  txt: 'text/plain',
  text: 'text/plain',
  log: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
};

/** The media type a file's name claims, from its extension; undefined for an extension not allowed. */
export function mediaTypeOfName(name: string): AttachmentMediaType | undefined {
  const extension = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  return extension ? byExtension[extension] : undefined;
}

/**
 * A file's name as it may be shown: its last path component, without control, format (bidirectional overrides,
 * zero-width) or separator characters, at most maxNameChars; undefined when nothing is left.
 */
export function attachmentName(name: string | undefined): string | undefined {
  if (typeof name !== 'string') return undefined;
  const last = name.split(/[\\/]/).pop() ?? '';
  const clean = last.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '').trim();
  return clean ? [...clean].slice(0, attachmentBounds.maxNameChars).join('') : undefined;
}

/** A size in words: `1.5 MB`, `512 B`. */
export function formatBytes(size: number): string {
  if (size < 1000) return `${size} B`;
  if (size < 1000 * 1000) return `${(size / 1000).toFixed(1)} kB`;
  return `${(size / (1000 * 1000)).toFixed(1)} MB`;
}

/** One attachment in words, for `agent show` and messages: `chart.png (image/png, 41.2 kB)`. */
export function describeAttachment(part: Pick<AttachmentPart, 'name' | 'mediaType' | 'size'>): string {
  return `${part.name ?? 'unnamed'} (${part.mediaType}, ${formatBytes(part.size)})`;
}

/** What is wrong with one message's set of attachments as a whole (too many, too large together), or undefined. */
export function attachmentSetProblem(parts: ReadonlyArray<Pick<AttachmentPart, 'size'>>): string | undefined {
  if (parts.length > attachmentBounds.maxFiles)
    return `${parts.length} attachments; a message may carry at most ${attachmentBounds.maxFiles}`;
  const total = parts.reduce((sum, part) => sum + part.size, 0);
  if (total > attachmentBounds.maxMessageBytes) {
    return `the attachments come to ${formatBytes(total)}; a message may carry at most ${formatBytes(attachmentBounds.maxMessageBytes)}`;
  }
  return undefined;
}

const partKeys = ['type', 'ref', 'mediaType', 'size', 'name'];

/**
 * What is wrong with a reference as a message carries it (it came from a caller: a library user, a client of the
 * workflow), or undefined. The bytes behind it are checked again when the model activity loads them.
 */
export function attachmentPartProblem(part: unknown): string | undefined {
  if (typeof part !== 'object' || part === null) return 'an attachment is an object';
  const { type, ref, mediaType, size, name } = part as Record<string, unknown>;
  // Nothing else rides in a reference: bytes smuggled beside it would go into history with the message.
  const extra = Object.keys(part).find((key) => !partKeys.includes(key));
  if (extra !== undefined) return `an attachment part has no field ${JSON.stringify(extra)}`;
  if (type !== 'attachment') return `an attachment part has type "attachment", not ${JSON.stringify(type)}`;
  if (!isAttachmentRef(ref)) return `attachment ref ${JSON.stringify(ref)} is not a name the attachment store gives`;
  if (!isAttachmentMediaType(mediaType)) return `attachment media type ${JSON.stringify(mediaType)} is not allowed`;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > attachmentBounds.maxFileBytes)
    return `attachment size ${JSON.stringify(size)} is not between 1 and ${attachmentBounds.maxFileBytes} bytes`;
  if (name !== undefined && (typeof name !== 'string' || attachmentName(name) !== name))
    return `attachment name ${JSON.stringify(name)} is not a clean file name`;
  return undefined;
}

/** A run's `attachments` go with its prompt (the first user message): none without one, and within one message's bounds. */
export function promptAttachmentsProblem(input: {
  prompt?: string;
  attachments?: readonly AttachmentPart[];
}): string | undefined {
  if (!input.attachments?.length) return undefined;
  if (input.prompt === undefined) return 'attachments go with a prompt: give one';
  return attachmentsProblem(input.attachments);
}

/** A session message with attachments, as the sendMessage and steer updates take it (a bare string still works). */
export interface MessageWithAttachments {
  content: string;
  attachments?: AttachmentPart[];
}

/** The text and the references of a message as an update took it: a string (every message before attachments) or an object. */
export function sentMessageParts(sent: unknown): { content: unknown; attachments?: unknown } {
  if (typeof sent === 'object' && sent !== null && !Array.isArray(sent)) {
    const { content, attachments } = sent as Record<string, unknown>;
    return attachments === undefined ? { content } : { content, attachments };
  }
  return { content: sent };
}

/** What is wrong with a message's attachments as an update or an input carries them, or undefined. */
export function attachmentsProblem(attachments: unknown): string | undefined {
  if (attachments === undefined) return undefined;
  if (!Array.isArray(attachments)) return 'attachments is a list';
  for (const part of attachments) {
    const problem = attachmentPartProblem(part);
    if (problem) return problem;
  }
  return attachmentSetProblem(attachments as AttachmentPart[]);
}

/**
 * An attachment with its bytes (base64), as the model activity hands it to a provider for one call: in memory only,
 * never in history, a transcript or a result (activities/model/load-attachments.ts).
 */
export interface LoadedAttachment extends AttachmentPart {
  /** The bytes, base64; absent when `omitted`. */
  data?: string;
  /**
   * Left out of this request, said to the model in words: an earlier message's attachment that no longer fits the
   * provider's request limit beside the newer ones (activities/model/load-attachments.ts).
   */
  omitted?: true;
}
