import { inflateSync } from 'node:zlib';
import { sniffAttachment, type SniffOptions } from '../../core/attachment-sniff';
import {
  attachmentBounds,
  attachmentName,
  attachmentPartProblem,
  attachmentSetProblem,
  mediaTypeOfName,
} from '../../core/attachments';
import { elfBytes, gifBytes, jpegBytes, pdfBytes, pngBytes, pngSignature, webpBytes } from '../support/attachment-files';

const inflate: SniffOptions['inflate'] = (compressed, maxBytes) => {
  try {
    return inflateSync(compressed, { maxOutputLength: maxBytes });
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? 'over' : undefined;
  }
};
const problemOf = (bytes: Uint8Array, declared: string) => {
  const result = sniffAttachment(bytes, declared, { inflate });
  return result.ok ? undefined : result.problem;
};

describe('sniffAttachment: files that are what they say', () => {
  it.each([
    ['image/png', pngBytes()],
    ['image/png', pngBytes(200_000)],
    ['image/jpeg', jpegBytes()],
    ['image/gif', gifBytes()],
    ['image/webp', webpBytes()],
    ['application/pdf', pdfBytes()],
    ['application/pdf', pdfBytes({ catalog: '/OpenAction [3 0 R /Fit]', stream: '<< /Type /Annot /JSON 1 >>' })],
    ['text/plain', Buffer.from('plain text, ünïcödé, emoji 🙂\n')],
    ['text/markdown', Buffer.from('\ufeff# Title\n\n- item\n')],
  ])('accepts a well-formed %s', (mediaType, bytes) => {
    expect(sniffAttachment(bytes, mediaType, { inflate })).toEqual({ ok: true, mediaType });
  });
});

describe("sniffAttachment: the attacker's attempts", () => {
  it('refuses a PNG header in front of an executable', () => {
    expect(problemOf(Buffer.concat([pngSignature, elfBytes()]), 'image/png')).toMatch(
      /image\/png: chunk at byte 8 has no valid type/,
    );
  });

  it('refuses an ELF or PE executable, whatever it is declared as', () => {
    expect(problemOf(elfBytes(), 'image/png')).toMatch(/executable \(ELF\)/);
    expect(problemOf(Buffer.concat([Buffer.from('MZ'), Buffer.alloc(62)]), 'text/plain')).toMatch(
      /executable \(a DOS\/Windows PE\)/,
    );
  });

  it('refuses a valid image with an executable appended after its end (a polyglot)', () => {
    expect(problemOf(Buffer.concat([pngBytes(), elfBytes()]), 'image/png')).toMatch(/bytes after the image's end \(IEND\)/);
    expect(problemOf(Buffer.concat([jpegBytes(), elfBytes()]), 'image/jpeg')).toMatch(/after the image's end \(EOI\)/);
    expect(problemOf(Buffer.concat([gifBytes(), elfBytes()]), 'image/gif')).toMatch(/after the image's end \(trailer\)/);
    expect(problemOf(Buffer.concat([webpBytes(), elfBytes()]), 'image/webp')).toMatch(/RIFF size says/);
  });

  it('refuses a PNG whose chunk was altered (its CRC fails) or that is cut short', () => {
    const altered = pngBytes();
    altered[20] ^= 0xff;
    expect(problemOf(altered, 'image/png')).toMatch(/fails its CRC/);
    const whole = pngBytes();
    expect(problemOf(whole.subarray(0, whole.length - 12), 'image/png')).toMatch(/no IEND/);
  });

  it('refuses a declared type that is not the type of the bytes', () => {
    expect(problemOf(jpegBytes(), 'image/png')).toBe('declared image/png, but the bytes are image/jpeg');
    expect(problemOf(Buffer.from('just text'), 'image/png')).toBe(
      'declared image/png, but the bytes are not a file of that type',
    );
    expect(problemOf(pngBytes(), 'text/plain')).toBe('declared text/plain, but the bytes are image/png');
    expect(problemOf(pdfBytes(), 'text/markdown')).toBe('declared text/markdown, but the bytes are application/pdf');
  });

  it('refuses a PDF with JavaScript, an action that runs JavaScript, or a launch action', () => {
    expect(problemOf(pdfBytes({ catalog: '/Names << /JavaScript 5 0 R >>' }), 'application/pdf')).toMatch(/\/JavaScript/);
    expect(problemOf(pdfBytes({ catalog: '/OpenAction << /S /JavaScript /JS (app.alert(1)) >>' }), 'application/pdf')).toMatch(
      /active content/,
    );
    expect(problemOf(pdfBytes({ catalog: '/OpenAction << /S /Launch /F (calc.exe) >>' }), 'application/pdf')).toMatch(/\/Launch/);
  });

  it('refuses JavaScript hidden by #xx escapes in its name, or inside a compressed object stream', () => {
    expect(problemOf(pdfBytes({ catalog: '/AA << /O << /S /J#61vaScript /J#53 (x) >> >>' }), 'application/pdf')).toMatch(
      /\/JavaScript/,
    );
    expect(problemOf(pdfBytes({ stream: '5 0 << /S /JavaScript /JS (app.alert(1)) >>' }), 'application/pdf')).toMatch(
      /in a compressed stream/,
    );
  });

  it('refuses a PDF whose compressed streams inflate beyond what can be checked (a zip bomb)', () => {
    const bomb = pdfBytes({ stream: ' '.repeat(1_000_001) });
    expect(bomb.length).toBeLessThan(5_000);
    const result = sniffAttachment(bomb, 'application/pdf', { inflate, maxInflatedBytes: 1_000_000 });
    expect(result).toEqual({ ok: false, problem: expect.stringMatching(/inflate to more than can be checked/) });
  });

  it('refuses a PDF without its version header or its end marker', () => {
    expect(problemOf(Buffer.from('%PDF-x\n%%EOF'), 'application/pdf')).toMatch(/no PDF version header/);
    expect(problemOf(pdfBytes().subarray(0, 60), 'application/pdf')).toMatch(/%%EOF/);
  });

  it('refuses text that is not UTF-8 or holds NUL bytes', () => {
    expect(problemOf(Buffer.from([0x68, 0x69, 0xc3, 0x28]), 'text/plain')).toMatch(/not valid UTF-8/);
    expect(problemOf(Buffer.from('a\u0000b'), 'text/plain')).toMatch(/NUL bytes/);
  });

  it('refuses a media type outside the allowed ones, an empty file and one over the bound', () => {
    expect(problemOf(Buffer.from('<svg onload="alert(1)"/>'), 'image/svg+xml')).toMatch(/"image\/svg\+xml" is not allowed/);
    expect(problemOf(Buffer.from('#!/bin/sh'), 'application/x-sh')).toMatch(/is not allowed/);
    expect(problemOf(Buffer.alloc(0), 'text/plain')).toBe('the file is empty');
    expect(problemOf(Buffer.alloc(attachmentBounds.maxFileBytes + 1, 0x61), 'text/plain')).toMatch(/at most 21.0 MB/);
  });
});

describe('attachment names, sets and parts', () => {
  it('keeps only the last path component of a name, without control or bidirectional characters', () => {
    expect(attachmentName('../../etc/passwd')).toBe('passwd');
    expect(attachmentName('C:\\Users\\me\\invoice\u202egnp.exe')).toBe('invoicegnp.exe');
    expect(attachmentName('\u0000\u200b')).toBeUndefined();
    expect(attachmentName('a'.repeat(300))).toHaveLength(attachmentBounds.maxNameChars);
  });

  it('tells a media type from an extension, and nothing for one not allowed', () => {
    expect(mediaTypeOfName('Scan.PDF')).toBe('application/pdf');
    expect(mediaTypeOfName('photo.jpg')).toBe('image/jpeg');
    expect(mediaTypeOfName('run.exe')).toBeUndefined();
    expect(mediaTypeOfName('noextension')).toBeUndefined();
  });

  it('bounds the count and the total size of one message', () => {
    expect(attachmentSetProblem(new Array(10).fill({ size: 1 }))).toBeUndefined();
    expect(attachmentSetProblem(new Array(11).fill({ size: 1 }))).toMatch(/at most 10/);
    expect(attachmentSetProblem([{ size: 20 * 1024 * 1024 }, { size: 13 * 1024 * 1024 }])).toMatch(/at most 33.6 MB/);
  });

  it('refuses a part a caller forged: a path as its ref, a type not allowed, a size out of bounds, a dirty name', () => {
    const good = { type: 'attachment', ref: 'a'.repeat(64), mediaType: 'image/png', size: 10, name: 'a.png' };
    expect(attachmentPartProblem(good)).toBeUndefined();
    expect(attachmentPartProblem({ ...good, ref: `${'a'.repeat(64)}.key-1` })).toBeUndefined();
    expect(attachmentPartProblem({ ...good, ref: '../../etc/passwd' })).toMatch(/not a name the attachment store gives/);
    expect(attachmentPartProblem({ ...good, mediaType: 'text/html' })).toMatch(/not allowed/);
    expect(attachmentPartProblem({ ...good, size: 0 })).toMatch(/between 1 and/);
    expect(attachmentPartProblem({ ...good, name: 'x/../a.png' })).toMatch(/not a clean file name/);
    expect(attachmentPartProblem({ ...good, data: 'iVBORw0KGgo…' })).toBe('an attachment part has no field "data"');
  });
});
