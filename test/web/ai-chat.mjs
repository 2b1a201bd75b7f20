// `Chat` as useChat holds it (@ai-sdk/react's, over `ai`'s AbstractChat and DefaultChatTransport), with
// `sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses`, driven as a person would: send a
// message, and when the turn waits for an approval, either type another message or press Approve. A separate Node
// process because the packages are ESM-only and jest here loads CommonJS. Reads the script from argv (JSON) and prints
// one JSON line: every POST the page made (status and newest message's role), the messages it shows, its status.
import { Chat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';

const script = JSON.parse(process.argv[2]);
const posts = [];
let settled;
const chat = new Chat({
  id: script.chatId,
  transport: new DefaultChatTransport({
    api: script.api,
    headers: { 'x-user': script.user },
    fetch: async (url, init) => {
      const body = JSON.parse(init.body);
      const response = await globalThis.fetch(url, init);
      posts.push({ status: response.status, newest: body.messages.at(-1)?.role });
      return response;
    },
  }),
  sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  onFinish: () => settled?.(),
  onError: () => settled?.(),
});

/** Resolves when the response in flight (or the next one) finishes or fails. */
const nextResponse = () => new Promise((resolve) => (settled = resolve));
const waitingApproval = () =>
  chat.messages.flatMap((message) => message.parts).find((part) => part.state === 'approval-requested' && part.approval?.id);

try {
  await chat.sendMessage({ text: script.first });
  const asked = waitingApproval();
  if (!asked) throw new Error('the first turn asked for no approval');
  if (script.typed !== undefined) await chat.sendMessage({ text: script.typed });
  // The person presses Approve on the call that waited (after typing, its button is still on the page).
  const posted = posts.length;
  const responding = nextResponse();
  await chat.addToolApprovalResponse({ id: asked.approval.id, approved: true });
  // The Approve goes out only when sendAutomaticallyWhen says so (the Chat asks it the same way); then its response
  // is waited for.
  if (lastAssistantMessageIsCompleteWithApprovalResponses({ messages: chat.messages }) || posts.length > posted) {
    await responding;
  }
  console.log(JSON.stringify({ posts, messages: chat.messages, status: chat.status, error: chat.error?.message ?? null }));
} catch (error) {
  console.log(JSON.stringify({ failed: String(error?.message ?? error), posts, messages: chat.messages }));
}
