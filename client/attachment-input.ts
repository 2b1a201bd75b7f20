import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { sniffAttachment } from '../core/attachment-sniff';
import {
  attachmentBounds,
  attachmentName,
  attachmentPartProblem,
  attachmentSetProblem,
  formatBytes,
  isAttachmentMediaType,
  mediaTypeOfName,
  type AttachmentPart,
} from '../core/attachments';
import { AgentError } from '../core/errors';
import type { AttachmentStore } from '../storage/attachment-store';
import { agentStores } from '../storage/stores';
import { boundedInflate as inflate } from '../storage/sniff-inflate';

/**
 * An image or a file to send with a message: a file on this machine (its media type from its extension unless given),
 * or bytes in memory with their media type. Checked and stored by the client before anything is sent
 * (docs/attachments.md).
 */
export type AttachmentInput =
  { path: string; mediaType?: string; name?: string } | { data: Uint8Array; mediaType: string; name?: string };

/** An attachment refused before anything was sent or stored: its type, its size, or bytes that are not what they claim. */
export class AttachmentRefusedError extends AgentError {
  constructor(
    message: string,
    /** The file's name or path, when the refusal is about one file. */
    readonly file?: string,
  ) {
    super(message);
  }
}

interface CheckedAttachment {
  bytes: Uint8Array;
  part: Omit<AttachmentPart, 'ref'>;
}

/**
 * Checks every attachment (count, type, size, the bytes against the type), and only when all of them pass stores them
 * and returns their references, in order: a refused file stores nothing and sends nothing.
 */
export async function storeAttachments(
  inputs: ReadonlyArray<AttachmentInput | AttachmentPart>,
  store?: AttachmentStore,
): Promise<AttachmentPart[]> {
  if (inputs.length === 0) return [];
  if (inputs.length > attachmentBounds.maxFiles) {
    throw new AttachmentRefusedError(`${inputs.length} attachments; a message may carry at most ${attachmentBounds.maxFiles}`);
  }
  const checked: Array<CheckedAttachment | AttachmentPart> = [];
  for (const input of inputs) checked.push(isStoredPart(input) ? storedPart(input) : await checkAttachment(input));
  const setProblem = attachmentSetProblem(checked.map((each) => ('part' in each ? each.part : each)));
  if (setProblem) throw new AttachmentRefusedError(setProblem);
  const target = store ?? agentStores().attachments;
  return Promise.all(checked.map(async (each) => ('part' in each ? { ...each.part, ref: await target.put(each.bytes) } : each)));
}

/** A reference already stored (by an earlier storeAttachments: the CLI stores its --file flags before it connects). */
function isStoredPart(input: AttachmentInput | AttachmentPart): input is AttachmentPart {
  return (input as AttachmentPart).type === 'attachment' && 'ref' in input;
}

function storedPart(part: AttachmentPart): AttachmentPart {
  const problem = attachmentPartProblem(part);
  if (problem) throw new AttachmentRefusedError(problem);
  return part;
}

async function checkAttachment(input: AttachmentInput): Promise<CheckedAttachment> {
  if (typeof input !== 'object' || input === null)
    throw new AttachmentRefusedError('an attachment is { path } or { data, mediaType }');
  const label = 'path' in input ? input.path : (input.name ?? 'attachment');
  const refuse = (problem: string) =>
    new AttachmentRefusedError(`attachment ${JSON.stringify(label)} refused: ${problem}`, label);
  const name = attachmentName(input.name ?? ('path' in input ? input.path : undefined));
  const mediaType = input.mediaType ?? ('path' in input ? mediaTypeOfName(input.path) : undefined);
  if (mediaType === undefined) {
    throw refuse('its extension names no media type that is accepted (.png .jpg .jpeg .webp .gif .pdf .txt .md); give mediaType');
  }
  if (!isAttachmentMediaType(mediaType)) throw refuse(`media type "${mediaType}" is not accepted`);
  const bytes = 'path' in input ? await readBounded(input.path, refuse) : input.data;
  if (!(bytes instanceof Uint8Array)) throw refuse('data must be a Uint8Array');
  const sniffed = sniffAttachment(bytes, mediaType, { inflate });
  if (!sniffed.ok) throw refuse(sniffed.problem);
  return { bytes, part: { type: 'attachment', mediaType: sniffed.mediaType, size: bytes.length, ...(name && { name }) } };
}

/**
 * A regular file's bytes, at most the bound: checked on the descriptor that is read (not the path before opening it),
 * opened without blocking (a FIFO waits for no writer) and read no further than its size, so a FIFO, a device or a
 * file that grows is refused without reading it whole.
 */
async function readBounded(file: string, refuse: (problem: string) => Error): Promise<Uint8Array> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
    throw refuse(`it cannot be opened (${error.code ?? error.message})`);
  });
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw refuse('it is not a regular file');
    if (info.size > attachmentBounds.maxFileBytes) {
      throw refuse(`it is ${formatBytes(info.size)}; at most ${formatBytes(attachmentBounds.maxFileBytes)} are accepted`);
    }
    const buffer = Buffer.alloc(info.size + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > info.size) throw refuse('it grew while it was read');
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}
