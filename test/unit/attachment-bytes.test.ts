import { storeAttachments } from '../../client/attachment-input';
import type { AttachmentPart } from '../../core/attachments';
import type { Message } from '../../core/messages';
import { MemoryAttachmentStore } from '../../storage/attachment-store';
import { attachmentBytesResponse, attachmentOf, attachmentResponse } from '../../web/attachment-bytes';
import { ChatRequestError } from '../../web/chat-sessions';
import { toUiMessages } from '../../web/ui-messages';
import { elfBytes, pdfBytes, pngBytes } from '../support/attachment-files';

// What the chat page's bytes route answers for a stored attachment (web/attachment-bytes.ts): the headers that keep
// the browser from interpreting hostile bytes in our origin, and the refusals of a part that does not match its bytes.
// Who may ask (the session's owner, a ref of its messages) is tested against a session in test/web/chat-files.test.ts.

const png = pngBytes(2_000);
const pdf = pdfBytes();
const store = new MemoryAttachmentStore();

async function stored(data: Buffer, mediaType: string, name?: string): Promise<AttachmentPart> {
  const [part] = await storeAttachments([{ data, mediaType, ...(name && { name }) }], store);
  return part!;
}

const get = (headers: Record<string, string> = {}) => new Request('http://localhost/api/chat/c1/attachments/x', { headers });

it('serves an image inline as its sniffed type, with nosniff and a sandboxing CSP', async () => {
  const part = await stored(png, 'image/png', 'chart.png');
  const response = await attachmentResponse(part, store, get());
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('image/png');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('content-disposition')).toMatch(/^inline; filename="chart.png"/);
  expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'.*sandbox/);
  expect(response.headers.get('cache-control')).toBe('private, no-cache');
  expect(Buffer.from(await response.arrayBuffer()).equals(png)).toBe(true);
});

it('serves a PDF and a text file only as downloads, never to be rendered in our origin', async () => {
  const pdfResponse = await attachmentResponse(await stored(pdf, 'application/pdf', 'scan.pdf'), store, get());
  expect(pdfResponse.headers.get('content-type')).toBe('application/pdf');
  expect(pdfResponse.headers.get('content-disposition')).toMatch(/^attachment; filename="scan.pdf"/);
  expect(pdfResponse.headers.get('x-content-type-options')).toBe('nosniff');
  const html = Buffer.from('<html><script>alert(document.cookie)</script></html>');
  const text = await attachmentResponse(await stored(html, 'text/plain', 'page.html.txt'), store, get());
  expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  expect(text.headers.get('content-disposition')).toMatch(/^attachment;/);
});

it("keeps a hostile file name out of the header's syntax", async () => {
  const part = await stored(pdf, 'application/pdf', 'a"; filename=evil.html; x=".pdf');
  const disposition = (await attachmentResponse(part, store, get())).headers.get('content-disposition')!;
  expect(disposition).toBe(
    `attachment; filename="a__ filename_evil.html_ x__.pdf"; filename*=UTF-8''${encodeURIComponent(part.name!)}`,
  );
});

it('refuses a part whose ref names bytes of another type (a PDF or an executable behind an image/png part)', async () => {
  const pdfPart = await stored(pdf, 'application/pdf');
  const forged: AttachmentPart = { ...pdfPart, mediaType: 'image/png' };
  await expect(attachmentResponse(forged, store, get())).rejects.toThrow(
    /refused: declared image\/png, but the bytes are application\/pdf/,
  );
  const elf = elfBytes();
  expect(() =>
    attachmentBytesResponse({ type: 'attachment', ref: 'a'.repeat(64), mediaType: 'image/png', size: elf.length }, elf),
  ).toThrow(/executable/);
  expect(() => attachmentBytesResponse({ ...pdfPart, size: pdfPart.size + 1 }, pdf)).toThrow(ChatRequestError);
});

it('refuses SVG at the door: it is not an allowed type, declared or disguised as a PNG', async () => {
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
  await expect(stored(svg, 'image/svg+xml', 'logo.svg')).rejects.toThrow(/not accepted/);
  await expect(stored(svg, 'image/png', 'logo.png')).rejects.toThrow(/not a file of that type/);
  const part = {
    type: 'attachment',
    ref: 'b'.repeat(64),
    mediaType: 'image/svg+xml',
    size: svg.length,
  } as unknown as AttachmentPart;
  expect(() => attachmentBytesResponse(part, svg)).toThrow(/not allowed/);
});

it('answers 304 to the copy the page has, without reading the store', async () => {
  const part: AttachmentPart = { type: 'attachment', ref: 'c'.repeat(64), mediaType: 'image/png', size: 10 };
  const response = await attachmentResponse(part, new MemoryAttachmentStore(), get({ 'if-none-match': `"${part.ref}"` }));
  expect(response.status).toBe(304);
});

it("finds a ref only among the conversation's user attachments", async () => {
  const part = await stored(png, 'image/png', 'chart.png');
  const other = 'd'.repeat(64);
  const conversation: Message[] = [
    { role: 'user', content: 'look', attachments: [part] },
    { role: 'assistant', content: `the ref ${other}`, toolCalls: [] },
  ];
  expect(attachmentOf(conversation, part.ref)).toEqual(part);
  expect(attachmentOf(conversation, other)).toBeUndefined();
  expect(attachmentOf(conversation, '../../etc/passwd')).toBeUndefined();
});

it('reads a user message back with its attachments as file parts before its text', async () => {
  const part = await stored(png, 'image/png', 'chart.png');
  const [message] = toUiMessages([{ role: 'user', content: 'look', attachments: [part] }], ({ ref }) => `/files/${ref}`);
  expect(message!.parts).toEqual([
    {
      type: 'file',
      mediaType: 'image/png',
      filename: 'chart.png',
      url: `/files/${part.ref}`,
      providerMetadata: { durableAgent: { size: png.length } },
    },
    { type: 'text', text: 'look', state: 'done' },
  ]);
});
