import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { ApplicationFailure } from '@temporalio/common';
import { classifyProviderError } from '../../activities/model/classify-error';
import { withAttachmentBytes } from '../../activities/model/load-attachments';
import type { AttachmentPart, LoadedAttachment } from '../../core/attachments';
import { AttachmentNotAcceptedError, failureTypes } from '../../core/errors';
import type { Message } from '../../core/messages';
import { aiSdkProvider } from '../../providers';
import { anthropicProvider } from '../../providers/anthropic/provider';
import { openaiProvider } from '../../providers/openai/provider';
import { openaiResponsesProvider } from '../../providers/openai-responses/provider';
import type { ModelProvider, ProviderCall } from '../../providers/provider-call';
import { MemoryAttachmentStore } from '../../storage/attachment-store';
import { jpegBytes, pdfBytes, pngBytes } from '../support/attachment-files';
import { anthropicReply, FakeModelServer, openaiReply, openaiResponsesReply } from '../support/fake-model-server';
import { geminiReply } from '../support/gemini-and-mistral-replies';

// At the provider boundary only: the model activity loads each reference (withAttachmentBytes) and each provider
// converts it, through the real SDK clients, to a strict fake server that refuses what the real APIs refuse.

let server: FakeModelServer;
let google: ModelProvider;
const store = new MemoryAttachmentStore();
const png = pngBytes(2_000);
const pdf = pdfBytes();
const notes = Buffer.from('# Notes\n\nThe total is 42.\n');

beforeAll(async () => {
  server = await FakeModelServer.start();
  google = aiSdkProvider('google', createGoogleGenerativeAI({ baseURL: `${server.url}/v1beta`, apiKey: 'test-google-key' }));
});
afterAll(() => server?.close());
beforeEach(() => server.reset());

async function part(bytes: Uint8Array, mediaType: AttachmentPart['mediaType'], name: string): Promise<AttachmentPart> {
  return { type: 'attachment', ref: await store.put(bytes), mediaType, size: bytes.length, name };
}

async function conversation(...attachments: AttachmentPart[]): Promise<Message[]> {
  return [
    { role: 'system', content: 'You read what you are given.' },
    { role: 'user', content: 'What do these say?', attachments },
  ];
}

function callOf(model: string, messages: Message[]): ProviderCall {
  return {
    model,
    messages,
    tools: [],
    toolChoice: 'auto',
    modelSettings: {},
    env: server.providerEnv,
    signal: new AbortController().signal,
    timeoutMs: 10_000,
  };
}

async function send(provider: ModelProvider, model: string, messages: Message[]) {
  return provider.call(callOf(model, await withAttachmentBytes(messages, provider, model, store)));
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

describe('attachments at the provider boundary', () => {
  it('OpenAI Chat gets an image_url data URL, a file part and the text file as text', async () => {
    server.enqueue(openaiReply({ content: 'a chart, an invoice, notes' }));
    const messages = await conversation(
      await part(png, 'image/png', 'chart.png'),
      await part(pdf, 'application/pdf', 'invoice.pdf'),
      await part(notes, 'text/markdown', 'notes.md'),
    );
    await send(openaiProvider, 'gpt-4o-mini', messages);
    expect(server.refusals).toEqual([]);
    expect(server.requests[0]!.body.messages[1].content).toEqual([
      { type: 'text', text: 'What do these say?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${base64(png)}` } },
      { type: 'file', file: { filename: 'invoice.pdf', file_data: `data:application/pdf;base64,${base64(pdf)}` } },
      { type: 'text', text: expect.stringContaining('Attached file notes.md (text/markdown):\n\n# Notes') },
    ]);
  });

  it('OpenAI Responses gets input_image and input_file', async () => {
    server.enqueue(openaiResponsesReply({ content: 'seen' }));
    const messages = await conversation(
      await part(png, 'image/png', 'chart.png'),
      await part(pdf, 'application/pdf', 'invoice.pdf'),
    );
    await send(openaiResponsesProvider, 'gpt-5-mini', messages);
    expect(server.refusals).toEqual([]);
    const user = server.requests[0]!.body.input.find((item: { role?: string }) => item.role === 'user');
    expect(user.content).toEqual([
      { type: 'input_text', text: 'What do these say?' },
      { type: 'input_image', image_url: `data:image/png;base64,${base64(png)}`, detail: 'auto' },
      { type: 'input_file', filename: 'invoice.pdf', file_data: `data:application/pdf;base64,${base64(pdf)}` },
    ]);
  });

  it('Anthropic gets base64 image and document blocks before the text', async () => {
    server.enqueue(anthropicReply({ text: 'seen' }));
    const messages = await conversation(
      await part(png, 'image/png', 'chart.png'),
      await part(pdf, 'application/pdf', 'invoice.pdf'),
    );
    await send(anthropicProvider, 'claude-sonnet-4-5', messages);
    expect(server.refusals).toEqual([]);
    expect(server.requests[0]!.body.messages[0].content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: base64(png) } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: base64(pdf) }, title: 'invoice.pdf' },
      expect.objectContaining({ type: 'text', text: 'What do these say?' }),
    ]);
  });

  it('an AI SDK model (@ai-sdk/google) gets file parts, which reach Gemini as inline data', async () => {
    server.enqueue(geminiReply({ text: 'seen' }));
    const messages = await conversation(
      await part(png, 'image/png', 'chart.png'),
      await part(pdf, 'application/pdf', 'invoice.pdf'),
    );
    await send(google, 'gemini-2.5-flash', messages);
    expect(server.refusals).toEqual([]);
    const parts = server.requests[0]!.body.contents[0].parts;
    expect(parts).toEqual(
      expect.arrayContaining([
        { inlineData: { mimeType: 'image/png', data: base64(png) } },
        { inlineData: { mimeType: 'application/pdf', data: base64(pdf) } },
      ]),
    );
    // Always the bytes: never a Files API or gs:// URI the server would have had to be pointed at.
    expect(parts.filter((each: Record<string, unknown>) => 'fileData' in each)).toEqual([]);
  });

  it('the same reference sent in two messages is loaded and sent for both, the history keeping the reference only', async () => {
    server.enqueue(openaiReply({ content: 'same' }));
    const chart = await part(png, 'image/png', 'chart.png');
    const messages: Message[] = [
      { role: 'user', content: 'first', attachments: [chart] },
      { role: 'assistant', content: 'ok', toolCalls: [] },
      { role: 'user', content: 'again', attachments: [chart] },
    ];
    const loaded = await withAttachmentBytes(messages, openaiProvider, 'gpt-4o-mini', store);
    expect(JSON.stringify(messages)).not.toContain(base64(png).slice(0, 40));
    expect((loaded[2] as unknown as { attachments: LoadedAttachment[] }).attachments[0]!.data).toBe(base64(png));
  });
});

describe('refused before the call, never dropped', () => {
  async function refusal(provider: ModelProvider, model: string, messages: Message[]): Promise<ApplicationFailure> {
    const error = await send(provider, model, messages).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(AttachmentNotAcceptedError);
    expect(server.requests).toHaveLength(0);
    const failure = classifyProviderError(error, provider.name);
    expect(failure).toMatchObject({ type: failureTypes.attachmentNotAccepted, nonRetryable: true });
    return failure;
  }

  it('refuses an image to a model that takes none', async () => {
    const failure = await refusal(anthropicProvider, 'claude-2.1', await conversation(await part(png, 'image/png', 'chart.png')));
    expect(failure.message).toBe(
      'anthropic:claude-2.1 takes no images (chart.png (image/png, 2.1 kB)): choose a model with image input',
    );
  });

  it("refuses an image over the provider's own limit (Anthropic: 5 MB)", async () => {
    const big = pngBytes(6 * 1024 * 1024);
    const failure = await refusal(
      anthropicProvider,
      'claude-sonnet-4-5',
      await conversation(await part(big, 'image/png', 'big.png')),
    );
    expect(failure.message).toMatch(/big\.png \(image\/png, 6\.3 MB\) is over anthropic's limit of 5\.2 MB for an image/);
  });

  it('refuses any attachment to a provider that declares none (a provider of your own)', async () => {
    const plain: ModelProvider = {
      name: 'plain',
      call: async () => ({
        message: { role: 'assistant', content: '', toolCalls: [] },
        finishReason: 'stop',
        usage: { inputTokens: 0, outputTokens: 0 },
      }),
    };
    const failure = await refusal(plain, 'any', await conversation(await part(notes, 'text/plain', 'notes.txt')));
    expect(failure.message).toMatch(/plain:any takes no attachments/);
  });

  it('refuses a reference forged to name other bytes: another size, or a JPEG called a PNG', async () => {
    const jpeg = jpegBytes();
    const forged: AttachmentPart = { type: 'attachment', ref: await store.put(jpeg), mediaType: 'image/png', size: jpeg.length };
    await expect(send(openaiProvider, 'gpt-4o-mini', await conversation(forged))).rejects.toThrow(
      /declared image\/png, but the bytes are image\/jpeg/,
    );
    const resized: AttachmentPart = { ...(await part(png, 'image/png', 'a.png')), size: 10 };
    await expect(send(openaiProvider, 'gpt-4o-mini', await conversation(resized))).rejects.toThrow(
      /stored bytes are \d+, not 10/,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('a long session of images', () => {
  it('leaves out the oldest images once the request would pass the limit, and tells the model so', async () => {
    server.enqueue(anthropicReply({ text: 'the newest' }));
    const big = async (seed: number) => {
      const bytes = pngBytes(4 * 1024 * 1024, seed);
      return {
        type: 'attachment' as const,
        ref: await store.put(bytes),
        mediaType: 'image/png' as const,
        size: bytes.length,
        name: `p${seed}.png`,
      };
    };
    const messages: Message[] = [];
    for (let turn = 1; turn <= 7; turn++) {
      messages.push({ role: 'user', content: `image ${turn}`, attachments: [await big(turn)] });
      messages.push({ role: 'assistant', content: `seen ${turn}`, toolCalls: [] });
    }
    messages.pop();
    // 7 images of 4 MB; Anthropic takes 24 MB a request: the newest five go, the two oldest are named instead.
    await send(anthropicProvider, 'claude-sonnet-4-5', messages);
    expect(server.refusals).toEqual([]);
    const users = server.requests[0]!.body.messages.filter((message: { role: string }) => message.role === 'user');
    const kinds = users.map((message: { content: Array<{ type: string; text?: string }> }) => message.content[0]!.type);
    expect(kinds).toEqual(['text', 'text', 'image', 'image', 'image', 'image', 'image']);
    expect(users[0].content[0].text).toMatch(/^\[p1\.png \(image\/png, 4\.2 MB\), attached earlier, is not sent again/);
  });
});

describe('the fake server refuses what the real APIs refuse', () => {
  const loaded = (data: string, mediaType: AttachmentPart['mediaType'] = 'image/png'): LoadedAttachment => ({
    type: 'attachment',
    ref: 'a'.repeat(64),
    mediaType,
    size: 1,
    data,
  });

  it('a malformed data URL to OpenAI Chat, bytes that are no image to Anthropic: 400, not retried', async () => {
    const chat = await openaiProvider
      .call(callOf('gpt-4o-mini', await conversation(loaded('not base64!'))))
      .catch((error: unknown) => error);
    expect(classifyProviderError(chat, 'openai')).toMatchObject({ type: failureTypes.providerRejected, nonRetryable: true });
    expect(server.refusals[0]!.refusal).toMatch(/Expected a base64-encoded data URL with an image MIME type/);
    const anthropic = await anthropicProvider
      .call(callOf('claude-sonnet-4-5', await conversation(loaded(base64(jpegBytes())))))
      .catch((error: unknown) => error);
    expect(classifyProviderError(anthropic, 'anthropic').message).toMatch(
      /specified using the image\/png media type, but the image appears to be a image\/jpeg/,
    );
  });

  it('an image in a system message to OpenAI Chat', async () => {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${base64(png)}` } }] },
          { role: 'user', content: 'hi' },
        ],
      }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      "Image URLs are only allowed for messages with role 'user', but this message with role 'system' contains an image URL.",
    );
  });
});
