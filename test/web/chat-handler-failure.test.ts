import { createServer } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { createAgUiHandler } from '../../web/ag-ui-handler';
import { createChatHandler } from '../../web/chat-handler';

// An unexpected failure (here: Temporal unreachable, a port nothing listens on) reaches the operator through onError,
// and the browser gets a bare 500: the error's words (addresses, internals) never go to the page.

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

it('answers a failure it did not expect with a bare 500, and tells onError what happened', async () => {
  const address = `127.0.0.1:${await closedPort()}`;
  const connection = await Connection.lazy({ address });
  const told: unknown[] = [];
  const handler = createChatHandler({
    client: new Client({ connection }),
    taskQueue: 'unused',
    input: { workspace: '/tmp' },
    authorize: () => 'alice',
    onError: (error) => told.push(error),
  });
  try {
    const response = await connection.withDeadline(Date.now() + 5_000, () =>
      handler(new Request('http://localhost/api/chat/some-chat')),
    );
    expect(response.status).toBe(500);
    const body = await response.text();
    expect(JSON.parse(body)).toEqual({ error: 'the chat handler failed; the server logged why' });
    expect(body).not.toContain(address);
    expect(told).toHaveLength(1);
    expect(String(told[0])).not.toBe('');
  } finally {
    await connection.close();
  }
}, 30_000);

it('the AG-UI handler answers the same way, through the same flow: a bare 500, and onError told', async () => {
  const address = `127.0.0.1:${await closedPort()}`;
  const connection = await Connection.lazy({ address });
  const told: unknown[] = [];
  const handler = createAgUiHandler({
    client: new Client({ connection }),
    taskQueue: 'unused',
    input: { workspace: '/tmp' },
    authorize: () => 'alice',
    onError: (error) => told.push(error),
  });
  const input = { threadId: 'some-thread', runId: 'r1', state: {}, tools: [], context: [], forwardedProps: {} };
  try {
    const response = await connection.withDeadline(Date.now() + 5_000, () =>
      handler(
        new Request('http://localhost/api/ag-ui', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...input, messages: [{ id: 'u1', role: 'user', content: 'hello' }] }),
        }),
      ),
    );
    expect(response.status).toBe(500);
    const body = await response.text();
    expect(JSON.parse(body)).toEqual({ error: 'the AG-UI handler failed; the server logged why' });
    expect(body).not.toContain(address);
    expect(told).toHaveLength(1);
  } finally {
    await connection.close();
  }
}, 30_000);
