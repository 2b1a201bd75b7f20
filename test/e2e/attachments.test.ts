import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startAgent } from '../../client/start-agent';
import { lastJsonLine, runCli } from '../support/cli';
import { elfBytes, pngBytes } from '../support/attachment-files';
import { FakeModelServer, openaiReply } from '../support/fake-model-server';
import { storageReference } from '../support/history-payloads';
import { fetchRawHistory } from '../support/raw-history';
import { connectToTestServer, uniqueTaskQueue } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';

// Images by reference, end to end through the CLI in this process: the fake model server receives the image, the
// run's history holds its reference and not its bytes.

let server: FakeModelServer;
let environment: TestWorkflowEnvironment;
let connection: Connection;
beforeAll(async () => {
  server = await FakeModelServer.start();
  environment = await connectToTestServer();
  connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
});
afterAll(async () => {
  await connection?.close();
  await environment?.teardown();
  await server?.close();
});
beforeEach(() => server.reset());

// Over the 256 KiB external-storage threshold: sent inline, it would leave history for the payload store as a claim.
const image = pngBytes(400_000);

/** What a history is, in bytes, and whether any payload of it went to external storage. */
async function historyOf(workflowId: string) {
  const history = await fetchRawHistory(connection, workflowId);
  return { bytes: history.bytes.length, offloaded: history.payloads.filter((payload) => storageReference(payload)).length };
}

function userParts(body: { messages: Array<{ role: string; content: unknown }> }) {
  return body.messages.filter((message) => message.role === 'user').map((message) => message.content);
}

it('agent run --file: the model gets the PNG as an image part, the history only its reference', async () => {
  server.enqueue(openaiReply({ content: 'a bar chart' }));
  const workspace = await makeWorkspace();
  const file = path.join(workspace, 'chart.png');
  await writeFile(file, image);
  const env = { ...server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('attachments-run') };
  const run = await runCli(['run', 'What is in the chart?', '--file', file, '--workspace', workspace, '--json'], env);
  expect(run.stderr).not.toMatch(/error/);
  expect(run.code).toBe(0);
  expect(server.refusals).toEqual([]);
  expect(userParts(server.requests[0]!.body)).toEqual([
    [
      { type: 'text', text: 'What is in the chart?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${image.toString('base64')}` } },
    ],
  ]);
  const history = await historyOf(String(lastJsonLine(run.stdout).workflowId));
  expect(history.offloaded).toBe(0);
  expect(history.bytes).toBeLessThan(image.length / 20);
});

it('agent send --file: a session message carries the image; show lists it; an executable is refused, nothing sent', async () => {
  server.enqueue(openaiReply({ content: 'a chart, again' }));
  const workspace = await makeWorkspace();
  await writeFile(path.join(workspace, 'chart.png'), image);
  await writeFile(path.join(workspace, 'cat.png'), elfBytes());
  const taskQueue = uniqueTaskQueue('attachments-send');
  const env = { ...server.providerEnv, AGENT_TASK_QUEUE: taskQueue };
  const handle = await startAgent(
    environment.client,
    { workspace, model: 'openai:gpt-4o-mini', tools: [], session: { idleTimeoutSeconds: 600 } },
    { taskQueue },
  );
  const refused = await runCli(['send', handle.workflowId, 'and this?', '--file', path.join(workspace, 'cat.png')], env);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/cat\.png" refused: the bytes are an executable \(ELF\), not image\/png/);
  expect(server.requests).toHaveLength(0);

  const sent = await runCli(['send', handle.workflowId, 'and this?', '--file', path.join(workspace, 'chart.png')], env);
  expect(sent.stdout).toBe('a chart, again\n');
  expect(userParts(server.requests[0]!.body)).toEqual([
    [
      { type: 'text', text: 'and this?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${image.toString('base64')}` } },
    ],
  ]);
  const show = await runCli(['show', handle.workflowId], env);
  expect(show.stdout).toContain(`and this?\n(attached: chart.png (image/png, ${(image.length / 1000).toFixed(1)} kB))`);
  expect((await runCli(['end', handle.workflowId], env)).code).toBe(0);
  const history = await historyOf(handle.workflowId);
  expect(history.offloaded).toBe(0);
  expect(history.bytes).toBeLessThan(image.length / 20);
});

it('read_file of a PNG: the next model request has the image after the tool result, the history only its reference', async () => {
  server.enqueue(
    openaiReply({ toolCalls: [{ id: 'read_chart', name: 'read_file', arguments: { path: 'chart.png' } }] }),
    openaiReply({ content: 'a bar chart' }),
  );
  const workspace = await makeWorkspace();
  await writeFile(path.join(workspace, 'chart.png'), image);
  const env = { ...server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('attachments-tool') };
  const run = await runCli(['run', 'What does chart.png show?', '--workspace', workspace, '--json'], env);
  expect(run.code).toBe(0);
  expect(server.refusals).toEqual([]);
  const { messages } = server.requests[1]!.body as { messages: Array<{ role: string; content: unknown }> };
  expect(messages.slice(-2)).toEqual([
    {
      role: 'tool',
      tool_call_id: 'read_chart',
      content: `chart.png (image/png, ${(image.length / 1000).toFixed(1)} kB) is attached below.`,
    },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'The result of tool call read_chart (read_file) attached these:' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${image.toString('base64')}` } },
      ],
    },
  ]);
  const workflowId = String(lastJsonLine(run.stdout).workflowId);
  const show = await runCli(['show', workflowId], env);
  expect(show.stdout).toContain(
    `[tool read_file read_chart]\nchart.png (image/png, ${(image.length / 1000).toFixed(1)} kB) is attached below.\n` +
      `(attached: chart.png (image/png, ${(image.length / 1000).toFixed(1)} kB))`,
  );
  const raw = await fetchRawHistory(connection, workflowId);
  expect(raw.bytes.toString('latin1')).toContain(createHash('sha256').update(image).digest('hex'));
  const history = await historyOf(workflowId);
  expect(history.offloaded).toBe(0);
  expect(history.bytes).toBeLessThan(image.length / 20);
});
