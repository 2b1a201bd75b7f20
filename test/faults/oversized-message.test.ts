import { mkdtempSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { maxPromptChars } from '../../core/limits';
import { MessageNotAnsweredError, sendMessage } from '../../client/send-message';
import { InvalidInputError, startAgent } from '../../client/start-agent';
import { endSessionSignal } from '../../workflows/definitions';
import { collect, spawnCli } from '../support/cli';
import { FakeModelServer, openaiReply } from '../support/fake-model-server';
import { connectToTestServer, createTestWorker, uniqueTaskQueue } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';

// A message over the session's limit used to be written to external storage (AGENT_PAYLOAD_DIR: anything
// over 256 KiB goes there) by the client's data converter before the workflow's validator refused it: a
// refused 50 MB message left a 48 MB file behind. Now the client refuses it before converting anything.

// This file's own payload directory, set before any data converter is made, so that only this file's
// clients and workers (this process and the CLIs it spawns) store payloads there.
const payloadDirectory = mkdtempSync(path.join(os.tmpdir(), 'agent-oversized-payloads-'));
process.env.AGENT_PAYLOAD_DIR = payloadDirectory;

const fiftyMegabytes = 'x'.repeat(50 * 1024 * 1024);
const limitText = `at most ${maxPromptChars} are accepted`;

let environment: TestWorkflowEnvironment;
let server: FakeModelServer;
beforeAll(async () => {
  environment = await connectToTestServer();
  server = await FakeModelServer.start();
});
beforeEach(() => server.reset());
afterAll(async () => {
  await server?.close();
  await environment?.teardown();
});

/** Every file under the payload directory (the driver shards them into sub-directories). */
async function storedPayloadFiles(): Promise<string[]> {
  const entries = await readdir(payloadDirectory, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

it('refuses a 50 MB message in sendMessage before it is stored, naming the limit; the session goes on', async () => {
  const taskQueue = uniqueTaskQueue('oversized-message');
  const worker = await createTestWorker(environment, { taskQueue, env: server.providerEnv });
  server.enqueue(openaiReply({ content: 'still here' }));
  const workspace = await makeWorkspace();
  await worker.runUntil(async () => {
    const handle = await startAgent(
      environment.client,
      { model: 'openai:gpt-4o-mini', workspace, session: { idleTimeoutSeconds: 60 } },
      { taskQueue },
    );
    const before = await storedPayloadFiles();

    const refusal = await sendMessage(handle, fiftyMegabytes).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(MessageNotAnsweredError);
    expect((refusal as MessageNotAnsweredError).refused).toBe(true);
    expect(await storedPayloadFiles()).toEqual(before);
    expect((refusal as MessageNotAnsweredError).message).toBe(
      `message is ${fiftyMegabytes.length} characters; ${limitText} (nothing was sent)`,
    );

    expect((await sendMessage(handle, 'are you there?')).answer).toBe('still here');
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify(server.requests[0].body)).not.toContain('xxxxxxxxxx');
    await handle.signal(endSessionSignal);
    expect(await handle.result()).toMatchObject({ status: 'ended', turns: 1 });
  });
});

it('refuses a 50 MB prompt in startAgent before anything is started or stored', async () => {
  const workspace = await makeWorkspace();
  const before = await storedPayloadFiles();
  const workflowId = `oversized-prompt-${Date.now()}`;
  await expect(
    startAgent(
      environment.client,
      { prompt: fiftyMegabytes, model: 'openai:gpt-4o-mini', workspace },
      { taskQueue: uniqueTaskQueue('oversized-prompt'), workflowId },
    ),
  ).rejects.toThrow(InvalidInputError);
  await expect(
    startAgent(
      environment.client,
      { prompt: fiftyMegabytes, model: 'openai:gpt-4o-mini', workspace },
      { taskQueue: uniqueTaskQueue('oversized-prompt') },
    ),
  ).rejects.toThrow(/prompt: .*262144/);
  expect(await storedPayloadFiles()).toEqual(before);
  await expect(environment.client.workflow.getHandle(workflowId).describe()).rejects.toThrow(/not found/i);
});

it('agent chat reports a 50 MB line as not accepted, stores nothing, and answers the next line', async () => {
  server.enqueue(openaiReply({ content: 'the next one is answered' }));
  const workspace = await makeWorkspace();
  const before = await storedPayloadFiles();
  const child = spawnCli(['chat', '--workspace', workspace], {
    ...server.providerEnv,
    AGENT_TASK_QUEUE: uniqueTaskQueue('oversized-chat'),
  });
  const finished = collect(child);
  // `agent send` takes its message as an argument, which Linux caps at 128 KiB (MAX_ARG_STRLEN), below the
  // limit: a chat's standard input is the CLI's way in for an oversized message.
  child.stdin!.write(`${fiftyMegabytes}\n`);
  child.stdin!.write('a normal message\n');
  child.stdin!.end('/end\n');
  const chat = await finished;

  expect(chat.stderr).toContain(
    `message not accepted: message is ${fiftyMegabytes.length} characters; ${limitText} (nothing was sent)`,
  );
  expect(chat.stdout).toBe('the next one is answered\n');
  expect(chat.stderr).toMatch(/session agent-\S+ ended: 1 message\(s\)/);
  // One message was not answered: the chat says so in its exit code.
  expect(chat.code).toBe(1);
  expect(await storedPayloadFiles()).toEqual(before);
});
