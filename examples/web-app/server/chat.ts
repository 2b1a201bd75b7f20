// One handler for all the chat routes (docs/web.md, "In your app").
import { Client, Connection } from '@temporalio/client';
import { agentDataConverter } from 'durable-agent';
import { createChatHandler } from 'durable-agent/web';
import { taskQueue, temporalAddress } from './settings';

const client = new Client({
  // lazy: connects on the first request, so this module needs no top-level await (as in a Next.js route module).
  connection: Connection.lazy({ address: temporalAddress }),
  dataConverter: agentDataConverter(),
});

export const chat = createChatHandler({
  client,
  taskQueue,
  input: {
    model: process.env.CHAT_MODEL ?? 'openai:gpt-4o-mini',
    tools: ['read_file'],
    workspace: process.env.CHAT_WORKSPACE ?? process.cwd(),
  },
  // Who is asking. This app has no sign-in, so everyone is one person; yours returns the user of the request's
  // session cookie or token, and undefined (answered 401) when there is none.
  authorize: () => 'everyone',
  // The page Vite built.
  staticDirectory: 'dist',
  // Only this app's own pages may call the handler, by loopback names and IP addresses: deployed under a name, list it
  // in allowedHosts (['chat.example.com']); a page of another origin that should call it, in allowedOrigins.
});
