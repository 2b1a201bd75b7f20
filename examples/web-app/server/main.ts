// The app's server: the chat handler on Node's http (toNodeListener adapts the Web-standard handler).
import http from 'node:http';
import { toNodeListener } from 'durable-agent/web';
import { chat } from './chat';

const port = Number(process.env.PORT ?? 3000);
http.createServer(toNodeListener(chat)).listen(port, '127.0.0.1', () => {
  console.error(`chat at http://127.0.0.1:${port}/`);
});
