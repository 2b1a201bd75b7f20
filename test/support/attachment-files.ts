import { crc32, deflateSync } from 'node:zlib';

/**
 * Small, well-formed files of each allowed type, built here (no binary fixtures in the tree), and the means to make
 * hostile ones from them. `pngBytes(size)` pads its image data to about `size` bytes with incompressible noise, so a
 * "1 MB image" is 1 MB on the wire too.
 */

function pngChunk(type: string, data: Uint8Array): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

export const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A valid PNG (1x1 grey, or a noise row image padded to about `approximateBytes`); `seed` makes distinct images. */
export function pngBytes(approximateBytes = 0, seed = 0): Buffer {
  const rows = approximateBytes > 0 ? Math.max(1, Math.ceil(approximateBytes / 1024)) : 1;
  const rowBytes = approximateBytes > 0 ? 1024 : 1;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(rowBytes, 0); // width in pixels (8-bit greyscale: one byte each)
  header.writeUInt32BE(rows, 4); // height
  header[8] = 8;
  header[9] = 0;
  const raw = Buffer.alloc(rows * (rowBytes + 1));
  let state = seed * 7919 + 1;
  for (let index = 0; index < raw.length; index++) {
    state = (state * 1103515245 + 12345) >>> 0;
    raw[index] = index % (rowBytes + 1) === 0 ? 0 : state >>> 24;
  }
  return Buffer.concat([
    pngSignature,
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(raw, { level: 0 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A minimal baseline JPEG's structure: SOI, a quantisation table, a frame, a scan header, entropy data, EOI. */
export function jpegBytes(): Buffer {
  const segment = (marker: number, data: number[]) => [
    0xff,
    marker,
    ...[(data.length + 2) >> 8, (data.length + 2) & 0xff],
    ...data,
  ];
  return Buffer.from([
    0xff,
    0xd8,
    ...segment(0xdb, [0, ...new Array(64).fill(1)]),
    ...segment(0xc0, [8, 0, 1, 0, 1, 1, 1, 0x11, 0]),
    ...segment(0xda, [1, 1, 0, 0, 0x3f, 0]),
    0x12,
    0xff,
    0x00,
    0x34,
    0xff,
    0xd9,
  ]);
}

/** A 1x1 GIF89a with a two-colour table. */
export function gifBytes(): Buffer {
  return Buffer.from([
    ...Buffer.from('GIF89a'),
    1,
    0,
    1,
    0,
    0x80,
    0,
    0,
    0,
    0,
    0,
    255,
    255,
    255,
    0x2c,
    0,
    0,
    0,
    0,
    1,
    0,
    1,
    0,
    0,
    2,
    2,
    0x44,
    0x01,
    0,
    0x3b,
  ]);
}

/** A RIFF/WEBP container with one VP8L chunk. */
export function webpBytes(): Buffer {
  const image = Buffer.from([0x2f, 0, 0, 0, 0]);
  const chunk = Buffer.concat([Buffer.from('VP8L'), u32le(image.length), image, Buffer.alloc(image.length % 2)]);
  const body = Buffer.concat([Buffer.from('WEBP'), chunk]);
  return Buffer.concat([Buffer.from('RIFF'), u32le(body.length), body]);
}

function u32le(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(value);
  return bytes;
}

/** A one-page PDF; `catalog` adds entries to its catalog dictionary, `stream` a FlateDecode stream of that content. */
export function pdfBytes(options: { catalog?: string; stream?: string } = {}): Buffer {
  const parts = [
    '%PDF-1.7\n',
    `1 0 obj\n<< /Type /Catalog /Pages 2 0 R ${options.catalog ?? ''}>>\nendobj\n`,
    '2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n',
    '3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>\nendobj\n',
  ];
  const head = Buffer.from(parts.join(''), 'latin1');
  const stream = options.stream
    ? (() => {
        const compressed = deflateSync(Buffer.from(options.stream));
        return Buffer.concat([
          Buffer.from(`4 0 obj\n<< /Type /ObjStm /Filter /FlateDecode /Length ${compressed.length} >>\nstream\n`, 'latin1'),
          compressed,
          Buffer.from('\nendstream\nendobj\n', 'latin1'),
        ]);
      })()
    : Buffer.alloc(0);
  return Buffer.concat([head, stream, Buffer.from('trailer\n<< /Root 1 0 R >>\n%%EOF\n', 'latin1')]);
}

export const elfBytes = (): Buffer => Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(56)]);
