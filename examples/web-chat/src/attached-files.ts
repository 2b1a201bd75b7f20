import type { FileUIPart } from 'ai';
import { attachmentBounds, attachmentMediaTypes } from '../../../core/attachments';

/**
 * The files a person attaches in the page, read into useChat's file parts (data URLs, the only kind the chat handler
 * takes: it never fetches a URL). The server checks each again (type, size, that the bytes are what they claim:
 * docs/attachments.md); these checks only say early, in the page, what it would refuse.
 */

/** What the server accepts (core/attachments.ts, the one list): the file input offers only these. */
export const acceptedTypes: readonly string[] = attachmentMediaTypes;
const { maxFiles, maxFileBytes } = attachmentBounds;

/** Markdown files often come with no type, or a type of the system's choosing: named by their extension then. */
function typeOf(file: File): string {
  if (file.type) return file.type === 'text/x-markdown' ? 'text/markdown' : file.type;
  return /\.(md|markdown)$/i.test(file.name) ? 'text/markdown' : /\.txt$/i.test(file.name) ? 'text/plain' : '';
}

/** Why these files cannot be sent, or undefined when they can. */
export function filesProblem(files: File[]): string | undefined {
  if (files.length > maxFiles) return `At most ${maxFiles} files go with one message.`;
  for (const file of files) {
    if (!acceptedTypes.includes(typeOf(file))) return `${file.name}: only images (PNG, JPEG, WebP, GIF), PDF and text files.`;
    if (file.size > maxFileBytes) return `${file.name} is ${formatSize(file.size)}; at most 20 MB a file.`;
  }
  return undefined;
}

export async function toFileParts(files: File[]): Promise<FileUIPart[]> {
  return Promise.all(
    files.map(
      (file) =>
        new Promise<FileUIPart>((resolve, reject) => {
          const reader = new FileReader();
          reader.onload = () =>
            resolve({ type: 'file', mediaType: typeOf(file), filename: file.name, url: String(reader.result) });
          reader.onerror = () => reject(reader.error ?? new Error(`reading ${file.name} failed`));
          reader.readAsDataURL(file);
        }),
    ),
  );
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A file part's size: the server's read-back says it (providerMetadata), a data URL holds the bytes themselves. */
export function sizeOf(part: FileUIPart): number | undefined {
  const said = (part.providerMetadata as { durableAgent?: { size?: unknown } } | undefined)?.durableAgent?.size;
  if (typeof said === 'number') return said;
  const comma = part.url.indexOf(',');
  if (!part.url.startsWith('data:') || comma < 0) return undefined;
  const base64 = part.url.slice(comma + 1);
  return Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);
}
