import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AttachmentRefusedError, storeAttachments } from '../../client/attachment-input';
import { withStoredAttachments } from '../../client/start-agent';
import { MemoryAttachmentStore } from '../../storage/attachment-store';
import { elfBytes, pdfBytes, pngBytes } from '../support/attachment-files';

describe('storeAttachments: checked on the client, stored all or nothing', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), 'attachment-input-'));
  });
  afterEach(() => rm(directory, { recursive: true, force: true }));

  it('stores a file by path and bytes in memory, each as a reference with its type, size and clean name', async () => {
    const store = new MemoryAttachmentStore();
    await writeFile(path.join(directory, 'chart.png'), pngBytes(5_000));
    const parts = await storeAttachments(
      [{ path: path.join(directory, 'chart.png') }, { data: pdfBytes(), mediaType: 'application/pdf', name: '../invoice.pdf' }],
      store,
    );
    expect(parts).toEqual([
      {
        type: 'attachment',
        ref: expect.stringMatching(/^[0-9a-f]{64}$/),
        mediaType: 'image/png',
        size: pngBytes(5_000).length,
        name: 'chart.png',
      },
      {
        type: 'attachment',
        ref: expect.stringMatching(/^[0-9a-f]{64}$/),
        mediaType: 'application/pdf',
        size: pdfBytes().length,
        name: 'invoice.pdf',
      },
    ]);
    expect(store.objects.size).toBe(2);
  });

  it('stores nothing when one file of several is refused: an executable renamed .png', async () => {
    const store = new MemoryAttachmentStore();
    await writeFile(path.join(directory, 'fine.png'), pngBytes());
    await writeFile(path.join(directory, 'cat.png'), elfBytes());
    const sending = storeAttachments(
      [{ path: path.join(directory, 'fine.png') }, { path: path.join(directory, 'cat.png') }],
      store,
    );
    await expect(sending).rejects.toThrow(AttachmentRefusedError);
    await expect(sending).rejects.toThrow(/cat\.png" refused: the bytes are an executable \(ELF\)/);
    expect(store.objects.size).toBe(0);
  });

  it('refuses an extension it does not accept, a directory and a FIFO, without blocking on the FIFO', async () => {
    const store = new MemoryAttachmentStore();
    await writeFile(path.join(directory, 'page.html'), '<script>alert(1)</script>');
    await expect(storeAttachments([{ path: path.join(directory, 'page.html') }], store)).rejects.toThrow(/names no media type/);
    await expect(storeAttachments([{ path: directory, mediaType: 'text/plain' }], store)).rejects.toThrow(/not a regular file/);
    const fifo = path.join(directory, 'pipe.txt');
    execFileSync('mkfifo', [fifo]);
    await expect(storeAttachments([{ path: fifo }], store)).rejects.toThrow(/not a regular file/);
  });

  it('refuses more files than a message may carry', async () => {
    const many = new Array(11).fill({ data: pngBytes(), mediaType: 'image/png' });
    await expect(storeAttachments(many, new MemoryAttachmentStore())).rejects.toThrow(/at most 10/);
  });

  it('gives startAgent an input whose attachments are references, and refuses attachments without a prompt', async () => {
    const store = new MemoryAttachmentStore();
    const input = await withStoredAttachments(
      { prompt: 'what is this?', workspace: directory, attachments: [{ data: pngBytes(), mediaType: 'image/png' }] },
      store,
    );
    expect(input.attachments).toEqual([expect.objectContaining({ type: 'attachment', mediaType: 'image/png' })]);
    expect(JSON.stringify(input).length).toBeLessThan(400);
    await expect(
      withStoredAttachments({ workspace: directory, attachments: [{ data: pngBytes(), mediaType: 'image/png' }] }, store),
    ).rejects.toThrow(/go with a prompt/);
  });
});
