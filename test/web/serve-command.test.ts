import { openaiReply } from '../support/fake-model-server';
import { spawnCli } from '../support/cli';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { chat, newChatId, textOf, userMessage } from './chat-client';

// `agent serve` as a person starts it: a process of its own, with the CLI's connection settings and its own worker.

const bed = useTestBed();
jest.setTimeout(180_000);

it('serves /api/chat: a message sent through DefaultChatTransport is answered by the agent it was started with', async () => {
  bed.server.enqueue({ ...openaiReply({ content: 'Served by agent serve.' }), stream: { intervalMs: 20 } });
  const child = spawnCli(
    ['serve', '--port', '0', '--model', 'openai:gpt-4o-mini', '--workspace', bed.workspace, '--static', bed.workspace],
    { ...bed.server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('serve') },
    { stdin: 'ignore' },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const api = await waitFor('agent serve listening', () => /serving (http:\/\/127\.0\.0\.1:\d+\/api\/chat)/.exec(stderr)?.[1], {
      timeoutMs: 90_000,
    });
    const id = newChatId();
    const { message, invalid } = await chat(api, 'anyone', id, [userMessage('hello from the page')]);
    expect(invalid).toEqual([]);
    expect(textOf(message)).toBe('Served by agent serve.');
    expect(JSON.stringify(bed.server.requests[0].body.messages)).toContain('hello from the page');
    // Unknown routes and methods: clear JSON errors.
    const wrong = await fetch(api, { method: 'GET' });
    expect(wrong.status).toBe(405);
    expect(await wrong.json()).toEqual({ error: 'POST only here' });
  } finally {
    child.kill('SIGINT');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  expect(bed.server.refusals).toEqual([]);
});
