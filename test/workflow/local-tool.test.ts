import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { defineTool } from '../../tools';
import { fetchEvents, scheduledActivities } from '../support/history';
import { scriptedModel } from 'durable-agent/testing';
import { connectToTestServer, createTestWorker, runAgent, uniqueTaskQueue } from '../support/temporal';

const EventType = temporal.api.enums.v1.EventType;

let environment: TestWorkflowEnvironment;
let workspace: string;

beforeAll(async () => {
  environment = await connectToTestServer();
  workspace = await mkdtemp(path.join(os.tmpdir(), 'local-tool-'));
});
afterAll(() => environment?.teardown());

/** A tool that opted in to local activities; `failFirst` makes each call's first attempt throw. */
function stampTool(options: { failFirst?: boolean } = {}) {
  const attempts = new Map<string, number>();
  const tool = defineTool({
    name: 'stamp',
    description: 'Stamps a label.',
    input: z.object({ label: z.string() }),
    activity: { local: true, initialRetryInterval: '10ms' },
    async handler({ label }) {
      const attempt = (attempts.get(label) ?? 0) + 1;
      attempts.set(label, attempt);
      if (options.failFirst && attempt === 1) throw new Error(`stamp ${label} jammed`);
      return `stamped ${label}`;
    },
  });
  return { tool, attempts };
}

function localActivityMarkers(events: Awaited<ReturnType<typeof fetchEvents>>): number {
  return events.filter(
    (event) =>
      event.eventType === EventType.EVENT_TYPE_MARKER_RECORDED &&
      event.markerRecordedEventAttributes?.markerName === 'core_local_activity',
  ).length;
}

describe('a tool run as a local activity (activity: { local: true })', () => {
  it('runs inside the workflow task: a marker per call, no activity events, results back to the model in the order asked', async () => {
    const { tool } = stampTool();
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'stamp', arguments: { label: 'a' }, id: 's1' },
          { name: 'stamp', arguments: { label: 'b' }, id: 's2' },
        ],
      },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'missing.txt' }, id: 'r1' }] },
      'done',
    ]);
    const taskQueue = uniqueTaskQueue('local-tool');
    // The test worker replays every workflow task (no cache): the markers must replay too.
    const worker = await createTestWorker(environment, { taskQueue, model, tools: [tool] });
    const { result, workflowId } = await worker.runUntil(
      runAgent(environment, taskQueue, {
        prompt: 'stamp a and b',
        model: 'scripted:test-model',
        tools: ['stamp', 'read_file'],
        workspace,
      }),
    );

    expect(result).toMatchObject({ answer: 'done', status: 'completed', iterations: 3 });
    expect(model.requests[1].messages.slice(-2)).toEqual([
      { role: 'tool', toolCallId: 's1', toolName: 'stamp', content: 'stamped a', isError: false },
      { role: 'tool', toolCallId: 's2', toolName: 'stamp', content: 'stamped b', isError: false },
    ]);
    const events = await fetchEvents(environment.client, workflowId);
    const scheduledTypes = scheduledActivities(events).map((activity) => activity.activityType);
    expect(scheduledTypes).not.toContain('stamp');
    // The regular tool beside it is still an activity of its own.
    expect(scheduledTypes).toContain('read_file');
    expect(localActivityMarkers(events)).toBe(2);
  });

  it('is retried by the workflow as its settings say', async () => {
    const { tool, attempts } = stampTool({ failFirst: true });
    const model = scriptedModel([{ toolCalls: [{ name: 'stamp', arguments: { label: 'c' }, id: 's1' }] }, 'done']);
    const taskQueue = uniqueTaskQueue('local-tool-retry');
    const worker = await createTestWorker(environment, { taskQueue, model, tools: [tool] });
    const { result } = await worker.runUntil(
      runAgent(environment, taskQueue, { prompt: 'stamp c', model: 'scripted:test-model', tools: ['stamp'], workspace }),
    );

    expect(result.status).toBe('completed');
    expect(attempts.get('c')).toBe(2);
    expect(model.requests[1].messages.slice(-1)).toEqual([
      { role: 'tool', toolCallId: 's1', toolName: 'stamp', content: 'stamped c', isError: false },
    ]);
  });
});
