import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { mkdtemp, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { toolActivity, type EchoedToolOutput } from '../../activities/tool-activity';
import { MemoryAttachmentStore } from '../../storage/attachment-store';
import { readFile } from '../../tools/read-file';
import { elfBytes, gifBytes, jpegBytes, pdfBytes, pngBytes, webpBytes } from '../support/attachment-files';
import { testWorkspaceRoot } from '../support/temporal';

// read_file of an image or a PDF, through the tool activity: the bytes are checked and stored, the output carries the
// reference only; a file that is not what its name claims is an error for the model, never an image.

let workspace: string;
let store: MemoryAttachmentStore;
const png = pngBytes(3_000);

beforeEach(async () => {
  workspace = await mkdtemp(path.join(testWorkspaceRoot, 'read-file-attachments-'));
  store = new MemoryAttachmentStore();
});

function read(file: string, options: { echoCallId?: boolean } = {}): Promise<string | EchoedToolOutput> {
  const environment = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  return environment
    .run(toolActivity(readFile, testWorkspaceRoot, undefined, store), {
      arguments: { path: file },
      workspace,
      callId: 'call_1',
      ...options,
    })
    .then((output) => output as string | EchoedToolOutput);
}

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ApplicationFailure)) throw new Error(`expected an ApplicationFailure, got ${String(error)}`);
  return error;
}

describe('read_file of an image', () => {
  it('stores the PNG and answers its text with the reference, not the bytes', async () => {
    await writeFile(path.join(workspace, 'chart.png'), png);
    const output = await read('chart.png');
    expect(output).toEqual({
      output: `chart.png (image/png, ${(png.length / 1000).toFixed(1)} kB) is attached below.`,
      attachments: [
        {
          type: 'attachment',
          ref: expect.stringMatching(/^[0-9a-f]{64}$/),
          mediaType: 'image/png',
          size: png.length,
          name: 'chart.png',
        },
      ],
    });
    const [ref] = [...store.objects.keys()];
    expect((output as EchoedToolOutput).attachments![0]!.ref).toBe(ref);
    expect(Buffer.from(store.objects.get(ref!)!)).toEqual(png);
    expect(JSON.stringify(output)).not.toContain(png.toString('base64').slice(0, 40));
  });

  it('answers a local activity with the call id beside the reference', async () => {
    await writeFile(path.join(workspace, 'chart.png'), png);
    expect(await read('chart.png', { echoCallId: true })).toMatchObject({
      callId: 'call_1',
      attachments: [{ mediaType: 'image/png' }],
    });
  });

  it.each([
    ['photo.jpg', 'image/jpeg', jpegBytes()],
    ['anim.gif', 'image/gif', gifBytes()],
    ['still.webp', 'image/webp', webpBytes()],
    ['invoice.pdf', 'application/pdf', pdfBytes()],
  ])('attaches %s as %s', async (name, mediaType, bytes) => {
    await writeFile(path.join(workspace, name), bytes);
    expect(await read(name)).toMatchObject({ attachments: [{ mediaType, size: bytes.length, name }] });
  });

  it('still reads a text file as text', async () => {
    await writeFile(path.join(workspace, 'notes.txt'), 'the total is 42');
    expect(await read('notes.txt')).toBe('the total is 42');
    expect(store.writes).toBe(0);
  });
});

describe('read_file refuses what is not what it claims', () => {
  it('an ELF named .png is an error for the model, and nothing is stored', async () => {
    await writeFile(path.join(workspace, 'innocent.png'), elfBytes());
    const failure = await failureOf(read('innocent.png'));
    expect(failure.type).toBe('ToolRefused');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe('innocent.png cannot be attached: the bytes are an executable (ELF), not image/png');
    expect(store.writes).toBe(0);
  });

  it('a PNG with an executable appended, and a PDF with JavaScript, are refused too', async () => {
    await writeFile(path.join(workspace, 'tail.png'), Buffer.concat([png, elfBytes()]));
    expect((await failureOf(read('tail.png'))).message).toMatch(/^tail\.png cannot be attached: image\/png: /);
    await writeFile(
      path.join(workspace, 'script.pdf'),
      pdfBytes({ catalog: '/OpenAction << /S /JavaScript /JS (app.alert(1)) >>' }),
    );
    expect((await failureOf(read('script.pdf'))).message).toMatch(/^script\.pdf cannot be attached: .*JavaScript/);
    expect(store.writes).toBe(0);
  });

  it('a .png symlink out of the workspace is still refused, before anything is read', async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), 'outside-'));
    await writeFile(path.join(outside, 'secret.png'), png);
    await symlink(path.join(outside, 'secret.png'), path.join(workspace, 'link.png'));
    const failure = await failureOf(read('link.png'));
    expect(failure.type).toBe('ToolRefused');
    expect(failure.message).toMatch(/symlink/i);
    expect(store.writes).toBe(0);
  });
});
