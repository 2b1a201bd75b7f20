import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createMistral } from '@ai-sdk/mistral';
import { withAttachmentBytes } from '../../activities/model/load-attachments';
import { formatBytes, type AttachmentPart } from '../../core/attachments';
import type { Message } from '../../core/messages';
import { aiSdkProvider } from '../../providers';
import { anthropicProvider } from '../../providers/anthropic/provider';
import { openaiProvider } from '../../providers/openai/provider';
import { openaiResponsesProvider } from '../../providers/openai-responses/provider';
import type { ModelProvider } from '../../providers/provider-call';
import { MemoryAttachmentStore } from '../../storage/attachment-store';
import { pdfBytes, pngBytes } from '../support/attachment-files';
import { anthropicReply, FakeModelServer, openaiReply, openaiResponsesReply } from '../support/fake-model-server';
import { geminiReply, mistralReply } from '../support/gemini-and-mistral-replies';

// An image a tool returned (a read_file of a PNG), by reference in the tool's result: loaded by the model activity and
// converted by each provider as its real API takes it, through the real SDK clients, to the strict fake server.

let server: FakeModelServer;
let google: ModelProvider;
let mistral: ModelProvider;
const store = new MemoryAttachmentStore();
const png = pngBytes(1_500);
const pdf = pdfBytes();
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

beforeAll(async () => {
  server = await FakeModelServer.start();
  google = aiSdkProvider('google', createGoogleGenerativeAI({ baseURL: `${server.url}/v1beta`, apiKey: 'test-google-key' }));
  mistral = aiSdkProvider('mistral', createMistral({ baseURL: `${server.url}/mistral/v1`, apiKey: 'test-mistral-key' }));
});
afterAll(() => server?.close());
beforeEach(() => server.reset());

async function stored(bytes: Uint8Array, mediaType: AttachmentPart['mediaType'], name: string): Promise<AttachmentPart> {
  return { type: 'attachment', ref: await store.put(bytes), mediaType, size: bytes.length, name };
}

/** Two calls in one round: read_file of chart.png (an image result) and list_directory (text alone). */
async function toolRound(attachment?: AttachmentPart): Promise<Message[]> {
  const chart = attachment ?? (await stored(png, 'image/png', 'chart.png'));
  return [
    { role: 'system', content: 'You read files.' },
    { role: 'user', content: 'What does chart.png show?' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [
        { id: 'call_read', name: 'read_file', arguments: '{"path":"chart.png"}' },
        { id: 'call_list', name: 'list_directory', arguments: '{"path":"."}' },
      ],
    },
    {
      role: 'tool',
      toolCallId: 'call_read',
      toolName: 'read_file',
      content: 'chart.png (image/png, 1.6 kB) is attached below.',
      isError: false,
      attachments: [chart],
    },
    { role: 'tool', toolCallId: 'call_list', toolName: 'list_directory', content: 'chart.png', isError: false },
  ];
}

async function send(provider: ModelProvider, model: string, messages: Message[]) {
  const loaded = await withAttachmentBytes(messages, provider, model, store);
  return provider.call({
    model,
    messages: loaded,
    tools: [],
    toolChoice: 'auto',
    modelSettings: {},
    env: server.providerEnv,
    signal: new AbortController().signal,
    timeoutMs: 10_000,
  });
}

describe('an image a tool returned, at each provider', () => {
  it('Anthropic gets the image block inside the tool_result, after its text', async () => {
    server.enqueue(anthropicReply({ text: 'a rising line' }));
    await send(anthropicProvider, 'claude-sonnet-4-5', await toolRound());
    expect(server.refusals).toEqual([]);
    const results = server.requests[0]!.body.messages[2].content;
    expect(results[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'call_read',
      content: [
        { type: 'text', text: 'chart.png (image/png, 1.6 kB) is attached below.' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: base64(png) } },
      ],
    });
    expect(results[1]).toMatchObject({ type: 'tool_result', tool_use_id: 'call_list', content: 'chart.png' });
  });

  it('Anthropic gets a PDF a tool returned as a document block in the tool_result', async () => {
    server.enqueue(anthropicReply({ text: 'an invoice' }));
    await send(anthropicProvider, 'claude-sonnet-4-5', await toolRound(await stored(pdf, 'application/pdf', 'invoice.pdf')));
    expect(server.refusals).toEqual([]);
    expect(server.requests[0]!.body.messages[2].content[0].content[1]).toEqual({
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: base64(pdf) },
      title: 'invoice.pdf',
    });
  });

  it('OpenAI Chat keeps tool messages text and sends the image in a user message after the round, naming the call', async () => {
    server.enqueue(openaiReply({ content: 'a rising line' }));
    await send(openaiProvider, 'gpt-4o-mini', await toolRound());
    expect(server.refusals).toEqual([]);
    const messages = server.requests[0]!.body.messages;
    expect(messages.map((message: { role: string }) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'user',
    ]);
    expect(messages[3]).toEqual({
      role: 'tool',
      tool_call_id: 'call_read',
      content: 'chart.png (image/png, 1.6 kB) is attached below.',
    });
    expect(messages[5].content).toEqual([
      { type: 'text', text: 'The result of tool call call_read (read_file) attached these:' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${base64(png)}` } },
    ]);
  });

  it('OpenAI Responses gets input_image inside the function_call_output', async () => {
    server.enqueue(openaiResponsesReply({ content: 'a rising line' }));
    await send(openaiResponsesProvider, 'gpt-5-mini', await toolRound());
    expect(server.refusals).toEqual([]);
    const outputs = server.requests[0]!.body.input.filter((item: { type?: string }) => item.type === 'function_call_output');
    expect(outputs).toEqual([
      {
        type: 'function_call_output',
        call_id: 'call_read',
        output: [
          { type: 'input_text', text: 'chart.png (image/png, 1.6 kB) is attached below.' },
          { type: 'input_image', image_url: `data:image/png;base64,${base64(png)}`, detail: 'auto' },
        ],
      },
      { type: 'function_call_output', call_id: 'call_list', output: 'chart.png' },
    ]);
  });

  it('an AI SDK model (@ai-sdk/google) gets a content output with a file part, which reaches Gemini as inline data', async () => {
    server.enqueue(geminiReply({ text: 'a rising line' }));
    await send(google, 'gemini-2.5-flash', await toolRound());
    expect(server.refusals).toEqual([]);
    const sent = JSON.stringify(server.requests[0]!.body.contents);
    expect(sent).toContain(JSON.stringify({ mimeType: 'image/png', data: base64(png) }));
    expect(sent).toContain('functionResponse');
  });
});

it('an AI SDK chat package (@ai-sdk/mistral), which would stringify media in a tool result, gets the image in a user message after it', async () => {
  server.enqueue(mistralReply({ text: 'a rising line' }));
  await send(mistral, 'mistral-small-latest', await toolRound());
  expect(server.refusals).toEqual([]);
  const messages = server.requests[0]!.body.messages;
  expect(messages.map((message: { role: string }) => message.role)).toEqual([
    'system',
    'user',
    'assistant',
    'tool',
    'tool',
    'user',
  ]);
  expect(messages[3].content).toBe('chart.png (image/png, 1.6 kB) is attached below.');
  expect(JSON.stringify(messages.slice(0, 5))).not.toContain(base64(png).slice(0, 40));
  expect(JSON.stringify(messages[5].content)).toContain('The result of tool call');
  expect(JSON.stringify(messages[5].content)).toContain(`data:image/png;base64,${base64(png)}`);
});

describe('a model that cannot take the image', () => {
  it('gets the text result with a line saying the image could not be shown, and the call goes ahead', async () => {
    server.enqueue(openaiReply({ content: 'I cannot see it' }));
    await send(openaiProvider, 'gpt-3.5-turbo', await toolRound());
    expect(server.refusals).toEqual([]);
    const messages = server.requests[0]!.body.messages;
    expect(messages.map((message: { role: string }) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool']);
    expect(messages[3].content).toBe(
      'chart.png (image/png, 1.6 kB) is attached below.\n' +
        `[The attachment could not be shown: openai:gpt-3.5-turbo takes no images (chart.png (image/png, ${formatBytes(png.length)})): choose a model with image input]`,
    );
    expect(JSON.stringify(messages)).not.toContain(base64(png).slice(0, 40));
  });

  it('a provider that declares no attachments gets the line too, not a failed run', async () => {
    const received: Message[][] = [];
    const plain: ModelProvider = {
      name: 'plain',
      call: async (call) => {
        received.push(call.messages);
        return {
          message: { role: 'assistant', content: 'ok', toolCalls: [] },
          finishReason: 'stop',
          usage: { inputTokens: 0, outputTokens: 0 },
        };
      },
    };
    await send(plain, 'any', await toolRound());
    const result = received[0]!.find((message) => message.role === 'tool' && message.toolCallId === 'call_read');
    expect(result).toEqual({
      role: 'tool',
      toolCallId: 'call_read',
      toolName: 'read_file',
      isError: false,
      content: expect.stringMatching(
        /\n\[The attachment could not be shown: plain:any takes no attachments \(the provider declares none\)/,
      ),
    });
  });
});

describe('the fake server refuses what the real APIs refuse', () => {
  it('an image in an OpenAI Chat tool message', async () => {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'user', content: 'read it' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
          },
          {
            role: 'tool',
            tool_call_id: 'c1',
            content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${base64(png)}` } }],
          },
        ],
      }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      "Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL.",
    );
  });
});
