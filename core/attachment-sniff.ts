import {
  attachmentBounds,
  attachmentMediaTypes,
  formatBytes,
  isAttachmentMediaType,
  isImage,
  type AttachmentMediaType,
} from './attachments';

/**
 * Whether bytes are what they claim to be. An attachment's declared media type must be the type of its bytes, and the
 * bytes must be a whole, well-formed file of that type: a PNG header in front of an executable, an image with
 * something appended after its end, a PDF with JavaScript or a launch action, text that is not UTF-8 are refused.
 * Nothing here decodes an image or runs anything: the walk reads the container's structure (chunks, segments, blocks)
 * and stops. Pure, no Node built-ins (the caller passes an inflater to look inside a PDF's compressed streams).
 */

export type SniffResult = { ok: true; mediaType: AttachmentMediaType } | { ok: false; problem: string };

export interface SniffOptions {
  /**
   * Inflates a PDF's FlateDecode stream to at most `maxBytes`: the bytes, `'over'` when they would be more, or
   * undefined when the stream is not valid zlib data. Without it, only the uncompressed parts of a PDF are read.
   */
  inflate?: (compressed: Uint8Array, maxBytes: number) => Uint8Array | 'over' | undefined;
  /** Bytes inflated from one PDF's streams, all together, beyond which it is refused as uncheckable. */
  maxInflatedBytes?: number;
}

type Refusal = { ok: false; problem: string };
const refuse = (problem: string): Refusal => ({ ok: false, problem });

export function sniffAttachment(bytes: Uint8Array, declared: string, options: SniffOptions = {}): SniffResult {
  if (!isAttachmentMediaType(declared)) {
    return refuse(`media type "${declared}" is not allowed; allowed: ${attachmentMediaTypes.join(', ')}`);
  }
  if (bytes.length === 0) return refuse('the file is empty');
  if (bytes.length > attachmentBounds.maxFileBytes) {
    return refuse(`the file is ${formatBytes(bytes.length)}; at most ${formatBytes(attachmentBounds.maxFileBytes)} are accepted`);
  }
  const executable = executableKind(bytes);
  if (executable) return refuse(`the bytes are an executable (${executable}), not ${declared}`);
  const actual = containerKind(bytes);
  if (isImage(declared) || declared === 'application/pdf') {
    if (actual !== declared) {
      return refuse(`declared ${declared}, but the bytes are ${actual ? `${actual}` : 'not a file of that type'}`);
    }
  } else if (actual) {
    return refuse(`declared ${declared}, but the bytes are ${actual}`);
  }
  const problem = structureProblem(bytes, declared, options);
  return problem ? refuse(`${declared}: ${problem}`) : { ok: true, mediaType: declared };
}

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  return prefix.every((byte, index) => bytes[at + index] === byte);
}

const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));

/** Executable formats, by their magic numbers: refused whatever they are declared as. */
function executableKind(bytes: Uint8Array): string | undefined {
  if (startsWith(bytes, [0x7f, 0x45, 0x4c, 0x46])) return 'ELF';
  if (startsWith(bytes, ascii('MZ'))) return 'a DOS/Windows PE';
  for (const magic of [
    [0xfe, 0xed, 0xfa, 0xce],
    [0xfe, 0xed, 0xfa, 0xcf],
    [0xce, 0xfa, 0xed, 0xfe],
    [0xcf, 0xfa, 0xed, 0xfe],
    [0xca, 0xfe, 0xba, 0xbe],
  ]) {
    if (startsWith(bytes, magic)) return 'Mach-O or Java class';
  }
  if (startsWith(bytes, [0x00, 0x61, 0x73, 0x6d])) return 'WebAssembly';
  return undefined;
}

/** The container the bytes begin as, by magic number, or undefined (text, or unknown). */
function containerKind(bytes: Uint8Array): AttachmentMediaType | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  if (startsWith(bytes, ascii('%PDF-'))) return 'application/pdf';
  return undefined;
}

function structureProblem(bytes: Uint8Array, mediaType: AttachmentMediaType, options: SniffOptions): string | undefined {
  switch (mediaType) {
    case 'image/png':
      return pngProblem(bytes);
    case 'image/jpeg':
      return jpegProblem(bytes);
    case 'image/gif':
      return gifProblem(bytes);
    case 'image/webp':
      return webpProblem(bytes);
    case 'application/pdf':
      return pdfProblem(bytes, options);
    case 'text/plain':
    case 'text/markdown':
      return textProblem(bytes);
    default: {
      const exhaustive: never = mediaType;
      return `unknown media type ${String(exhaustive)}`;
    }
  }
}

const u32be = (bytes: Uint8Array, at: number) =>
  ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
const u32le = (bytes: Uint8Array, at: number) =>
  (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
const u16be = (bytes: Uint8Array, at: number) => (bytes[at]! << 8) | bytes[at + 1]!;

let crcTable: Uint32Array | undefined;
function crc32(bytes: Uint8Array, start: number, end: number): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let index = start; index < end; index++) crc = crcTable[(crc ^ bytes[index]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Chunks from the signature to IEND, each with its CRC; IHDR first, an IDAT, nothing after IEND. */
function pngProblem(bytes: Uint8Array): string | undefined {
  let at = 8;
  let first = true;
  let sawData = false;
  while (at + 12 <= bytes.length) {
    const length = u32be(bytes, at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    if (!/^[A-Za-z]{4}$/.test(type)) return `chunk at byte ${at} has no valid type`;
    const end = at + 12 + length;
    if (length > 0x7fffffff || end > bytes.length) return `chunk ${type} runs past the end of the file`;
    if (first && (type !== 'IHDR' || length !== 13)) return 'the first chunk is not IHDR';
    if (crc32(bytes, at + 4, at + 8 + length) !== u32be(bytes, at + 8 + length)) return `chunk ${type} fails its CRC`;
    first = false;
    if (type === 'IDAT') sawData = true;
    at = end;
    if (type === 'IEND') {
      if (!sawData) return 'no image data (IDAT)';
      return at === bytes.length ? undefined : `${bytes.length - at} bytes after the image's end (IEND)`;
    }
  }
  return 'the file ends before the image does (no IEND)';
}

/** Segments from SOI to EOI (entropy-coded data skipped by its markers); after EOI only padding or another JPEG. */
function jpegProblem(bytes: Uint8Array): string | undefined {
  let at = 2;
  let sawFrame = false;
  while (at < bytes.length) {
    if (bytes[at] !== 0xff) return `no marker at byte ${at}`;
    while (bytes[at] === 0xff) at++;
    const marker = bytes[at++];
    if (marker === undefined) break;
    if (marker === 0xd9) return sawFrame ? afterJpegEnd(bytes, at) : 'no image frame before its end';
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) continue;
    if (at + 2 > bytes.length) break;
    const length = u16be(bytes, at);
    if (length < 2 || at + length > bytes.length) return `segment 0x${marker.toString(16)} runs past the end of the file`;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) sawFrame = true;
    at += length;
    if (marker === 0xda) {
      // Entropy-coded data: 0xFF is followed by 0x00 (a stuffed byte) or a restart marker inside it, anything else ends it.
      while (at + 1 < bytes.length && !(bytes[at] === 0xff && bytes[at + 1] !== 0 && (bytes[at + 1]! & 0xf8) !== 0xd0)) at++;
      if (at + 1 >= bytes.length) break;
    }
  }
  return 'the file ends before the image does (no EOI)';
}

function afterJpegEnd(bytes: Uint8Array, at: number): string | undefined {
  if (at === bytes.length) return undefined;
  // Cameras append a second JPEG (MPF previews); zero or 0xFF padding is common too.
  if (startsWith(bytes, [0xff, 0xd8, 0xff], at)) return jpegProblem(bytes.subarray(at));
  for (let index = at; index < bytes.length; index++) {
    if (bytes[index] !== 0x00 && bytes[index] !== 0xff) return `${bytes.length - at} bytes after the image's end (EOI)`;
  }
  return undefined;
}

/** Header, logical screen, then extension and image blocks to the trailer; nothing after it. */
function gifProblem(bytes: Uint8Array): string | undefined {
  if (bytes.length < 13) return 'the file ends inside its header';
  let at = 13 + colorTableBytes(bytes[10]!);
  let sawImage = false;
  const skipSubBlocks = (): boolean => {
    while (at < bytes.length) {
      const size = bytes[at++]!;
      if (size === 0) return true;
      at += size;
    }
    return false;
  };
  while (at < bytes.length) {
    const block = bytes[at++];
    if (block === 0x3b) {
      if (!sawImage) return 'no image in it';
      return at === bytes.length ? undefined : `${bytes.length - at} bytes after the image's end (trailer)`;
    }
    if (block === 0x21) {
      at++; // the extension's label
      if (!skipSubBlocks()) break;
    } else if (block === 0x2c) {
      if (at + 9 > bytes.length) break;
      at += 9 + colorTableBytes(bytes[at + 8]!);
      at++; // LZW minimum code size
      if (!skipSubBlocks()) break;
      sawImage = true;
    } else {
      return `unknown block 0x${(block ?? 0).toString(16)} at byte ${at - 1}`;
    }
  }
  return 'the file ends before the image does (no trailer)';
}

const colorTableBytes = (flags: number) => (flags & 0x80 ? 3 * 2 ** ((flags & 0x07) + 1) : 0);

/** A RIFF container whose size is the file's, holding a VP8, VP8L or VP8X image and chunks that fill it exactly. */
function webpProblem(bytes: Uint8Array): string | undefined {
  if (bytes.length < 20) return 'the file ends inside its header';
  if (u32le(bytes, 4) + 8 !== bytes.length)
    return `the RIFF size says ${u32le(bytes, 4) + 8} bytes, the file has ${bytes.length}`;
  const first = String.fromCharCode(...bytes.subarray(12, 16));
  if (!['VP8 ', 'VP8L', 'VP8X'].includes(first)) return `the first chunk is "${first}", not an image`;
  let at = 12;
  while (at < bytes.length) {
    if (at + 8 > bytes.length) return 'a chunk header runs past the end of the file';
    const size = u32le(bytes, at + 4);
    at += 8 + size + (size % 2);
  }
  return at === bytes.length ? undefined : 'a chunk runs past the end of the file';
}

/** PDF names that make a reader run something: scripts and launch actions. */
const activeNames = new Set(['JavaScript', 'JS', 'Launch']);
const defaultMaxInflatedBytes = 4 * attachmentBounds.maxFileBytes;

/**
 * A PDF header and end marker, and no active content (activeNames) in its dictionaries, uncompressed or inside its
 * FlateDecode streams (object streams hide dictionaries there). Names are compared once their `#xx` escapes are
 * decoded (`/J#53` is `/JS`).
 */
function pdfProblem(bytes: Uint8Array, options: SniffOptions): string | undefined {
  const text = latin1(bytes);
  if (!/^%PDF-[12]\.\d/.test(text)) return 'no PDF version header';
  if (!text.slice(-1024).includes('%%EOF')) return 'no end-of-file marker (%%EOF) at its end';
  const found = activeName(text);
  if (found) return `it has active content (/${found}), which is refused`;
  if (!options.inflate) return undefined;
  let budget = options.maxInflatedBytes ?? defaultMaxInflatedBytes;
  const streams = /\/FlateDecode[\s\S]{0,512}?>>\s*stream\r?\n/g;
  for (let match = streams.exec(text); match; match = streams.exec(text)) {
    const start = match.index + match[0].length;
    const end = text.indexOf('endstream', start);
    if (end < 0) return 'a stream has no end';
    const inflated = options.inflate(bytes.subarray(start, end), budget);
    if (inflated === 'over') return 'its compressed streams inflate to more than can be checked';
    if (!inflated) continue;
    budget -= inflated.length;
    const inside = activeName(latin1(inflated));
    if (inside) return `it has active content (/${inside}) in a compressed stream, which is refused`;
    streams.lastIndex = end;
  }
  return undefined;
}

function activeName(text: string): string | undefined {
  const names = /\/([^\s()<>[\]{}/%]+)/g;
  for (let match = names.exec(text); match; match = names.exec(text)) {
    const name = match[1]!.replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    if (activeNames.has(name)) return name;
  }
  return undefined;
}

function latin1(bytes: Uint8Array): string {
  let text = '';
  for (let at = 0; at < bytes.length; at += 0x8000) text += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return text;
}

/** UTF-8 (a byte-order mark allowed), no NUL. */
function textProblem(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return 'it holds NUL bytes: binary data, not text';
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return 'it is not valid UTF-8';
  }
  return undefined;
}
