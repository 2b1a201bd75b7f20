import { attachFor } from '../../activities/tool-attachments';
import { mcpResultWithAttachments } from '../../activities/mcp/result-attachments';
import { formatBytes } from '../../core/attachments';
import { MemoryAttachmentStore } from '../../storage/attachment-store';
import { elfBytes, pdfBytes, pngBytes } from '../support/attachment-files';

// An MCP server's images in a tool result: stored and referenced like a read_file of a PNG, or said in words when the
// server's bytes are not what it claims. The server is as untrusted as the model.

const png = pngBytes(1_200);
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

it('stores an image block and a PDF resource, naming each where it stood; text stays text', async () => {
  const store = new MemoryAttachmentStore();
  const pdf = pdfBytes();
  const output = await mcpResultWithAttachments(
    {
      content: [
        { type: 'text', text: 'Here is the chart:' },
        { type: 'image', data: base64(png), mimeType: 'image/png' },
        {
          type: 'resource',
          resource: { uri: 'file:///reports/q3%20invoice.pdf', blob: base64(pdf), mimeType: 'application/pdf' },
        },
      ],
    },
    attachFor(store),
  );
  expect(output.content).toBe(
    [
      'Here is the chart:',
      `[unnamed (image/png, ${formatBytes(png.length)}) attached]`,
      `[q3 invoice.pdf (application/pdf, ${formatBytes(pdf.length)}) attached]`,
    ].join('\n'),
  );
  expect(output.attachments).toEqual([
    { type: 'attachment', ref: expect.any(String), mediaType: 'image/png', size: png.length },
    { type: 'attachment', ref: expect.any(String), mediaType: 'application/pdf', size: pdf.length, name: 'q3 invoice.pdf' },
  ]);
  expect(Buffer.from(store.objects.get(output.attachments[0]!.ref)!)).toEqual(png);
});

it('says in words what is not what the server claims, and attaches nothing of it', async () => {
  const store = new MemoryAttachmentStore();
  const output = await mcpResultWithAttachments(
    {
      content: [
        { type: 'image', data: base64(elfBytes()), mimeType: 'image/png' },
        { type: 'image', data: 'not base64 at all!', mimeType: 'image/png' },
        { type: 'image', data: base64(png), mimeType: 'image/tiff' },
      ],
    },
    attachFor(store),
  );
  expect(output.attachments).toEqual([]);
  expect(store.writes).toBe(0);
  expect(output.content.split('\n')).toEqual([
    '[image (image/png) not shown: the file cannot be attached: the bytes are an executable (ELF), not image/png]',
    '[image (image/png) not shown: its data is not base64]',
    expect.stringMatching(/^\[image \(image\/tiff, \d+ bytes\) not shown\]$/),
  ]);
});

it('attaches at most the files of one message, and names the rest', async () => {
  const store = new MemoryAttachmentStore();
  const images = Array.from({ length: 12 }, (_, seed) => ({
    type: 'image' as const,
    data: base64(pngBytes(200, seed)),
    mimeType: 'image/png',
  }));
  const output = await mcpResultWithAttachments({ content: images }, attachFor(store));
  expect(output.attachments).toHaveLength(10);
  expect(output.content.split('\n').slice(10)).toEqual([
    '[image (image/png) not shown: 11 attachments; a message may carry at most 10]',
    '[image (image/png) not shown: 11 attachments; a message may carry at most 10]',
  ]);
});
