import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createAgUiHandler, createChatHandler, toNodeListener, type ChatHandlerOptions } from '../../web';

/** The chat handler on a real node:http server (through toNodeListener), as an app would mount it, AG-UI beside it. */
export interface ServedHandler {
  base: string;
  api: string;
  /** createAgUiHandler with the same options, at /api/ag-ui (as `agent serve` mounts it). */
  agUi: string;
  close(): Promise<void>;
}

export async function serveHandler(options: ChatHandlerOptions): Promise<ServedHandler> {
  const chat = createChatHandler(options);
  const agUi = createAgUiHandler(options);
  const server = http.createServer(
    toNodeListener((request) => (new URL(request.url).pathname === '/api/ag-ui' ? agUi(request) : chat(request))),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    api: `${base}/api/chat`,
    agUi: `${base}/api/ag-ui`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The parts of a UIMessage the tests read (the `ai` types cannot be imported into jest's CommonJS). */
export interface UiMessage {
  id: string;
  role: string;
  parts: Array<{ type: string; [field: string]: unknown }>;
}
export type UiChunk = { type: string; [field: string]: unknown };

export interface ClientAnswer {
  chunks: UiChunk[];
  /** Chunks `ai`'s uiMessageChunkSchema refused: always expected empty. */
  invalid: UiChunk[];
  message: UiMessage;
}

const clientScript = path.join(__dirname, 'ai-client.mjs');

/** Runs `ai`'s DefaultChatTransport (in a Node process of its own: the package is ESM-only) for one request. */
function runClient(ask: Record<string, unknown>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [clientScript, JSON.stringify(ask)], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${error.message}\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>);
    });
  });
}

/** Sends messages through DefaultChatTransport, as useChat's sendMessage does, and reads the whole answer. */
export async function chat(
  api: string,
  user: string,
  chatId: string,
  messages: UiMessage[],
  extra: { messageId?: string; lastMessage?: UiMessage; abortAfterChunks?: number; body?: Record<string, unknown> } = {},
): Promise<ClientAnswer> {
  const answer = await runClient({ kind: 'send', api, user, chatId, messages, ...extra });
  if ('error' in answer) throw new Error(`the transport failed: ${String(answer.error)}`);
  return answer as unknown as ClientAnswer;
}

/** useChat's resume: DefaultChatTransport.reconnectToStream; null when the server says no turn runs (204). */
export async function resume(api: string, user: string, chatId: string): Promise<ClientAnswer | null> {
  const answer = await runClient({ kind: 'resume', api, user, chatId });
  if ('error' in answer) throw new Error(`the transport failed: ${String(answer.error)}`);
  return 'none' in answer ? null : (answer as unknown as ClientAnswer);
}

export function userMessage(text: string, id = `m-${Math.random().toString(36).slice(2)}`): UiMessage {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}

export function textOf(message: UiMessage): string {
  return message.parts.flatMap((part) => (part.type === 'text' ? [part.text as string] : [])).join('');
}

export function newChatId(): string {
  return `t${Math.random().toString(36).slice(2, 12)}`;
}

const chatScript = path.join(__dirname, 'ai-chat.mjs');

/** What ai-chat.mjs saw: each POST the page made (its status, the role of the newest message sent), and the page. */
export interface ChatPage {
  posts: Array<{ status: number; newest: string }>;
  messages: UiMessage[];
  status: string;
  error: string | null;
}

/**
 * useChat's `Chat` with `sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses` (ai-chat.mjs):
 * sends `first`, then, while its approval waits, types `typed` (if given), then presses Approve on the waiting call.
 */
export async function chatPage(
  api: string,
  user: string,
  chatId: string,
  steps: { first: string; typed?: string },
): Promise<ChatPage> {
  const page = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const script = JSON.stringify({ api, user, chatId, ...steps });
    execFile(process.execPath, [chatScript, script], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${error.message}\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>);
    });
  });
  if ('failed' in page) throw new Error(`the page failed: ${String(page.failed)}`);
  return page as unknown as ChatPage;
}
