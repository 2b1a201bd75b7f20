import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { sendMessage } from '../client/send-message';
import { startAgent } from '../client/start-agent';
import { endSessionSignal } from '../workflows/definitions';
import { pngBytes } from '../test/support/attachment-files';
import { openaiReply } from '../test/support/fake-model-server';
import { inlineActivities } from './attachments/inline-activities';
import { inlineEndSignal, inlineMessageUpdate, type inlineAttachmentSession } from './attachments/inline-workflow';
import type { Benchmark } from './support/benchmark';
import { startFakeModelWorker } from './support/fake-model-worker';
import { formatBytes, markdownTable, type TargetRow } from './support/format';
import { fetchRunChain, type RunHistory } from './support/history';
import { log, quietLogger } from './support/log';

const imageBytes = 1_000_000;
const historyTarget = 1024 * 1024;

/** History bytes of every run of a workflow id, with the payloads the data converter moved to external storage. */
function sizeOf(runs: RunHistory[]): { history: number; external: number } {
  return {
    history: runs.reduce((sum, run) => sum + run.bytes, 0),
    external: runs.reduce((sum, run) => sum + run.externalBytes, 0),
  };
}

/**
 * Issue 38's figure: a session of 20 turns, each with a 1 MB PNG, keeps its history under 1 MB when the image goes by
 * reference (ours: the attachment store, through the real model activity and OpenAI provider to the fake model
 * server, which receives every image as a data URL), side by side with the same session carrying each image inline,
 * base64 in the message (bench/attachments/inline-workflow.ts). Both on the project's data converter: a payload over
 * 256 KB goes to external storage and counts there, not in history; both columns are shown.
 */
export const attachmentsBench: Benchmark = {
  name: 'attachments',
  title: 'History size of a session with an image per turn: by reference against inline',
  async run({ environment, quick }) {
    const turns = quick ? 5 : 20;
    const images = Array.from({ length: turns }, (_, turn) => pngBytes(imageBytes, turn + 1));
    const { server, fake, taskQueue } = await startFakeModelWorker(environment, {
      name: 'attachments',
      workspace: environment.workspace,
    });
    let imagesReceived = 0;
    fake.respondWith((request) => {
      const user = (request.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'user');
      const last = user.at(-1)?.content;
      if (Array.isArray(last) && last.some((part: { type?: string }) => part.type === 'image_url')) imagesReceived++;
      fake.requests.length = 0;
      return openaiReply({ content: 'I see a noisy grey image.' });
    });
    const client = new Client({
      connection: server.connection,
      namespace: server.namespace,
      dataConverter: environment.dataConverter,
    });

    log(`attachments: ${turns} turns with a ${formatBytes(imageBytes)} image each, by reference...`);
    const ours = await startAgent(
      client,
      { workspace: environment.workspace, model: 'openai:gpt-4o-mini', tools: [], session: { idleTimeoutSeconds: 600 } },
      { taskQueue, workflowId: `bench-attachments-ref-${randomUUID().slice(0, 8)}` },
    );
    const oursHandle = client.workflow.getHandle(ours.workflowId);
    for (const [turn, image] of images.entries()) {
      await sendMessage(oursHandle, `What is in image ${turn + 1}?`, {
        attachments: [{ data: image, mediaType: 'image/png', name: `image-${turn + 1}.png` }],
      });
    }
    await oursHandle.signal(endSessionSignal);
    await oursHandle.result();
    const byReference = sizeOf(await fetchRunChain(client, ours.workflowId, ours.firstExecutionRunId));
    await fake.close();

    log(`attachments: the same ${turns} turns with each image inline...`);
    const bundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('./attachments/inline-workflow'),
      logger: quietLogger,
    });
    const inlineQueue = `bench-attachments-inline-${randomUUID()}`;
    environment.runWorker(
      await Worker.create({
        connection: server.nativeConnection,
        namespace: server.namespace,
        taskQueue: inlineQueue,
        workflowBundle: { code: bundle.code },
        activities: inlineActivities,
        dataConverter: environment.dataConverter,
      }),
    );
    const inline = await client.workflow.start<typeof inlineAttachmentSession>('inlineAttachmentSession', {
      taskQueue: inlineQueue,
      workflowId: `bench-attachments-inline-${randomUUID().slice(0, 8)}`,
    });
    for (const [turn, image] of images.entries()) {
      await inline.executeUpdate(inlineMessageUpdate, {
        args: [{ content: `What is in image ${turn + 1}?`, image: { mediaType: 'image/png', base64: image.toString('base64') } }],
      });
    }
    await inline.signal(inlineEndSignal);
    await inline.result();
    const inlined = sizeOf(await fetchRunChain(client, inline.workflowId, inline.firstExecutionRunId));

    const imagesTotal = images.reduce((sum, image) => sum + image.length, 0);
    const targets: TargetRow[] = [
      {
        measure: `a ${turns}-turn session with a ${formatBytes(imageBytes)} image per turn, by reference`,
        result: `${formatBytes(byReference.history)} of history, ${formatBytes(byReference.external)} in external storage; ${imagesReceived} of ${turns} images reached the model`,
        target: 'history and its external payloads under 1 MB; every image reaches the model',
        pass: byReference.history + byReference.external < historyTarget && imagesReceived === turns,
      },
    ];
    return {
      details: [
        markdownTable(
          ['session', 'history', 'payloads in external storage', 'together'],
          [
            [
              'by reference (ours)',
              formatBytes(byReference.history),
              formatBytes(byReference.external),
              formatBytes(byReference.history + byReference.external),
            ],
            [
              'inline, base64 in the message',
              formatBytes(inlined.history),
              formatBytes(inlined.external),
              formatBytes(inlined.history + inlined.external),
            ],
          ],
        ),
        `${turns} turns, each a user message with a distinct ${formatBytes(imageBytes)} PNG (${formatBytes(imagesTotal)} of images; ` +
          'the attachment store holds them once each, outside history). By reference, the images go through the real model activity and OpenAI ' +
          "provider to the fake model server as data URLs. Inline, each image is in the update that sends it and again in the model call's input " +
          '(the messages new since the last call): each over 256 KB, so the data converter moves it to external storage, where it still counts ' +
          'against the workflow (it is durable state, read on every replay of the event).',
      ],
      targets,
    };
  },
};
