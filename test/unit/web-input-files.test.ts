import { readRunAgentInput } from '../../web/ag-ui-input';
import { readChatRequest } from '../../web/chat-request';
import { pdfBytes, pngBytes } from '../support/attachment-files';

// What a browser sends with a message, read into bytes to check: only bytes in the request; a URL is never fetched.

const png = pngBytes();
const dataUrl = `data:image/png;base64,${png.toString('base64')}`;

function chat(parts: unknown[]) {
  return { id: 'chat1', messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'what is this?' }, ...parts] }] };
}

function agUi(content: unknown[]) {
  return {
    threadId: 't1',
    runId: 'r1',
    state: {},
    messages: [{ id: 'm1', role: 'user', content: [{ type: 'text', text: 'what is this?' }, ...content] }],
    tools: [],
    context: [],
    forwardedProps: {},
  };
}

describe("useChat's file parts", () => {
  it('reads a data URL into bytes with its media type and name', () => {
    const ask = readChatRequest(chat([{ type: 'file', mediaType: 'image/png', url: dataUrl, filename: 'chart.png' }]));
    expect(ask).toEqual({
      kind: 'message',
      id: 'chat1',
      text: 'what is this?',
      files: [{ data: expect.any(Uint8Array), mediaType: 'image/png', name: 'chart.png' }],
    });
    expect(Buffer.from((ask as { files: Array<{ data: Uint8Array }> }).files[0]!.data).equals(png)).toBe(true);
  });

  it('reads a data URL of megabytes in linear time (a backtracking base64 pattern overflowed the stack)', () => {
    const big = pngBytes(6 * 1024 * 1024);
    const ask = readChatRequest(
      chat([{ type: 'file', mediaType: 'image/png', url: `data:image/png;base64,${big.toString('base64')}` }]),
    );
    expect((ask as { files: Array<{ data: Uint8Array }> }).files[0]!.data.length).toBe(big.length);
  });

  it('refuses a file by URL (never fetched), base64 that is not, and more files than a message may carry', () => {
    expect(() =>
      readChatRequest(chat([{ type: 'file', mediaType: 'image/png', url: 'http://169.254.169.254/latest/meta-data' }])),
    ).toThrow(/only a data URL is taken/);
    expect(() => readChatRequest(chat([{ type: 'file', mediaType: 'image/png', url: 'data:image/png;base64,@@@@' }]))).toThrow(
      /not base64/,
    );
    const many = new Array(11).fill({ type: 'file', mediaType: 'image/png', url: dataUrl });
    expect(() => readChatRequest(chat(many))).toThrow(/at most 10/);
  });
});

describe("AG-UI's binary input content", () => {
  it('reads an image part with a data source and a document part', () => {
    const ask = readRunAgentInput(
      agUi([
        { type: 'image', source: { type: 'data', value: png.toString('base64'), mimeType: 'image/png' } },
        { type: 'document', source: { type: 'data', value: pdfBytes().toString('base64'), mimeType: 'application/pdf' } },
      ]),
    );
    expect(ask).toMatchObject({
      kind: 'message',
      text: 'what is this?',
      files: [{ mediaType: 'image/png' }, { mediaType: 'application/pdf' }],
    });
  });

  it('refuses a url or file source: the server fetches nothing it is pointed at', () => {
    expect(() =>
      readRunAgentInput(agUi([{ type: 'image', source: { type: 'url', value: 'file:///etc/passwd', mimeType: 'image/png' } }])),
    ).toThrow(/only a data source is taken/);
  });
});
