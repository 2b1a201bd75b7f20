import { elfBytes, pngBytes } from '../support/attachment-files';
import { openaiReply } from '../support/fake-model-server';
import { chat, newChatId, textOf, type UiMessage } from './chat-client';
import { useServedChat } from './served-chat';

// useChat's file parts through `ai`'s own DefaultChatTransport: the image reaches the model by reference from the
// session, and a hostile file is refused before anything reaches the session.

const web = useServedChat('web-files', ({ workspace }) => ({ input: { model: 'openai:gpt-4o-mini', tools: [], workspace } }));
const { bed } = web;
const png = pngBytes(20_000);

function withFile(text: string, mediaType: string, bytes: Buffer, filename: string): UiMessage {
  return {
    id: `m-${Math.random().toString(36).slice(2)}`,
    role: 'user',
    parts: [
      { type: 'text', text },
      { type: 'file', mediaType, filename, url: `data:${mediaType};base64,${bytes.toString('base64')}` },
    ],
  };
}

it('a file part of a useChat message reaches the model as an image part', async () => {
  bed.server.enqueue(openaiReply({ content: 'A grey square.' }));
  const { message } = await chat(web.served.api, 'alice', newChatId(), [
    withFile('What is this?', 'image/png', png, 'square.png'),
  ]);
  expect(textOf(message)).toBe('A grey square.');
  expect(bed.server.requests[0]!.body.messages.at(-1).content).toEqual([
    { type: 'text', text: 'What is this?' },
    { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
  ]);
});

it('an executable sent as a PNG file part is refused with 422, and nothing reaches the session', async () => {
  const response = await fetch(web.served.api, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-user': 'alice', origin: web.served.base },
    body: JSON.stringify({ id: newChatId(), messages: [withFile('run this', 'image/png', elfBytes(), 'cat.png')] }),
  });
  expect(response.status).toBe(422);
  expect(await response.text()).toMatch(/the bytes are an executable \(ELF\), not image\/png/);
  expect(bed.server.requests).toHaveLength(0);
});
