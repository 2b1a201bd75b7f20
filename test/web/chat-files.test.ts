import { elfBytes, pdfBytes, pngBytes } from '../support/attachment-files';
import { openaiReply } from '../support/fake-model-server';
import { chat, newChatId, textOf, type UiMessage } from './chat-client';
import { useServedChat } from './served-chat';

// useChat's file parts through `ai`'s own DefaultChatTransport: the image reaches the model by reference from the
// session, and a hostile file is refused before anything reaches the session.

const web = useServedChat('web-files', ({ workspace }) => ({ input: { model: 'openai:gpt-4o-mini', tools: [], workspace } }));
const { bed } = web;
const png = pngBytes(20_000);

const dataUrl = (mediaType: string, bytes: Buffer) => `data:${mediaType};base64,${bytes.toString('base64')}`;

function withFile(text: string, mediaType: string, bytes: Buffer, filename: string): UiMessage {
  return {
    id: `m-${Math.random().toString(36).slice(2)}`,
    role: 'user',
    parts: [
      { type: 'text', text },
      { type: 'file', mediaType, filename, url: dataUrl(mediaType, bytes) },
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

it("serves a chat's attachment to its owner only, and only by a ref of the chat's own messages", async () => {
  const pdf = pdfBytes();
  const bobsPng = pngBytes(3_000, 7);
  bed.server.enqueue(openaiReply({ content: 'A square and a scan.' }), openaiReply({ content: "Bob's square." }));
  const aliceChat = newChatId();
  const bobChat = newChatId();
  const withBoth = withFile('Both of these', 'image/png', png, 'square.png');
  withBoth.parts.push({ type: 'file', mediaType: 'application/pdf', filename: 'scan.pdf', url: dataUrl('application/pdf', pdf) });
  await chat(web.served.api, 'alice', aliceChat, [withBoth]);
  await chat(web.served.api, 'bob', bobChat, [withFile('Mine', 'image/png', bobsPng, 'bob.png')]);

  // The conversation read back names each attachment as a file part at the bytes route, before the text.
  const asAlice = { 'x-user': 'alice' };
  const conversation = (await (await fetch(`${web.served.api}/${aliceChat}`, { headers: asAlice })).json()) as {
    messages: UiMessage[];
  };
  const [imagePart, pdfPart, textPart] = conversation.messages[0]!.parts;
  expect([imagePart!.type, imagePart!.mediaType, imagePart!.filename, pdfPart!.filename, textPart!.type]).toEqual([
    'file',
    'image/png',
    'square.png',
    'scan.pdf',
    'text',
  ]);
  expect(imagePart!.url).toMatch(new RegExp(`^/api/chat/${aliceChat}/attachments/[0-9a-f]{64}$`));
  expect(imagePart!.providerMetadata).toEqual({ durableAgent: { size: png.length } });
  const bytesUrl = (part: UiMessage['parts'][number]) => `${web.served.base}${String(part.url)}`;

  const image = await fetch(bytesUrl(imagePart!), { headers: asAlice });
  expect(image.status).toBe(200);
  expect(image.headers.get('content-type')).toBe('image/png');
  expect(image.headers.get('x-content-type-options')).toBe('nosniff');
  expect(Buffer.from(await image.arrayBuffer()).equals(png)).toBe(true);
  const scan = await fetch(bytesUrl(pdfPart!), { headers: asAlice });
  expect(scan.headers.get('content-type')).toBe('application/pdf');
  expect(scan.headers.get('content-disposition')).toMatch(/^attachment; filename="scan.pdf"/);
  expect(Buffer.from(await scan.arrayBuffer()).equals(pdf)).toBe(true);

  // Bob knows the URL of Alice's image: 404, as for a chat that does not exist; no one signed in: 401.
  expect((await fetch(bytesUrl(imagePart!), { headers: { 'x-user': 'bob' } })).status).toBe(404);
  expect((await fetch(bytesUrl(imagePart!))).status).toBe(401);
  // Bob asks for Alice's ref through his own chat: it is in the store, but not in his chat's messages.
  const aliceRef = String(imagePart!.url).split('/').pop()!;
  const throughBobsChat = `${web.served.api}/${bobChat}/attachments/${aliceRef}`;
  expect((await fetch(throughBobsChat, { headers: { 'x-user': 'bob' } })).status).toBe(404);
  // Alice asks for Bob's ref through her chat, and for a ref no message carries: 404 both.
  const bobsConversation = (await (await fetch(`${web.served.api}/${bobChat}`, { headers: { 'x-user': 'bob' } })).json()) as {
    messages: UiMessage[];
  };
  const bobRef = String(bobsConversation.messages[0]!.parts[0]!.url).split('/').pop()!;
  expect((await fetch(`${web.served.api}/${aliceChat}/attachments/${bobRef}`, { headers: asAlice })).status).toBe(404);
  expect((await fetch(`${web.served.api}/${aliceChat}/attachments/${'0'.repeat(64)}`, { headers: asAlice })).status).toBe(404);
  expect((await fetch(`${web.served.api}/${aliceChat}/attachments/..%2F..%2Fetc`, { headers: asAlice })).status).toBe(404);
  // Nor may a POST reach it.
  const post = await fetch(bytesUrl(imagePart!), {
    method: 'POST',
    headers: { ...asAlice, 'content-type': 'application/json', origin: web.served.base },
    body: '{}',
  });
  expect(post.status).toBe(405);
});
