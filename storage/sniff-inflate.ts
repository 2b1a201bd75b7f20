import { inflateSync } from 'node:zlib';
import type { SniffOptions } from '../core/attachment-sniff';

/**
 * zlib for the attachment sniffer (a PDF's compressed streams), bounded so that a small stream cannot inflate without
 * end (a zip bomb). Shared by the client that stores a user's files and the tool activity that stores a tool's.
 */
export const boundedInflate: NonNullable<SniffOptions['inflate']> = (compressed, maxBytes) => {
  try {
    return inflateSync(compressed, { maxOutputLength: Math.max(1, maxBytes) });
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? 'over' : undefined;
  }
};
