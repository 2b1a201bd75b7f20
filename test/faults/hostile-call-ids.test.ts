import { fetchHistoryChain } from '../../client/history-chain';
import { openaiReply } from '../support/fake-model-server';
import { createTestWorker, runAgent, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { makeWorkspace } from '../support/workspace';

// Issue 30, item 2: a tool activity's id comes from the model's call id, so the model's ids must not be able to make
// an id the server refuses (too long, not UTF-8), two activities with one id, or a result paired with another call:
// not within a reply, not across rounds, not across continue-as-new. Each test asserts the activity ids in history
// and which file each call's result came from. The loop's own naming of an id that is not well-formed (never raw)
// is checked in test/unit/tool-activity-id.test.ts: every model reply reaches the loop through the boundary that
// renames such ids (core/call-ids.ts), so no end-to-end run can hand it one.

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

const files = Object.fromEntries(['f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7'].map((name) => [`${name}.txt`, `token-${name}`]));
const read = (id: string, file: string) => ({ id, name: 'read_file', arguments: { path: `${file}.txt` } });
const wellFormedActivityId = /^tool-[A-Za-z0-9_-]{1,64}$/;

/** The read_file activity ids of every run of the chain, in order. */
async function toolActivityIds(workflowId: string): Promise<string[]> {
  const chain = await fetchHistoryChain(bed.environment.client, workflowId);
  return chain.flatMap((history) =>
    (history.events ?? []).flatMap((event) => {
      const attributes = event.activityTaskScheduledEventAttributes;
      return attributes?.activityType?.name === 'read_file' ? [attributes.activityId!] : [];
    }),
  );
}

it('gives every tool activity a well-formed id of its own when the model repeats, empties, stretches and garbles its call ids, across rounds and continue-as-new', async () => {
  const hostile = ['dup', 'dup', '', 'x'.repeat(300), 'a/b\u202e\u0000', '\ud800'];
  bed.server.enqueue(
    openaiReply({ toolCalls: hostile.map((id, index) => read(id, `f${index + 1}`)) }),
    // The next round reuses ids the first one had; the run continues as new after it and reuses them again.
    openaiReply({ toolCalls: [read('dup', 'f7'), read('x'.repeat(300), 'f1')] }),
    openaiReply({ toolCalls: [read('dup', 'f2')] }),
    openaiReply({ content: 'read them all' }),
  );
  const taskQueue = uniqueTaskQueue('hostile-call-ids');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const { result, workflowId } = await worker.runUntil(
    runAgent(bed.environment, taskQueue, {
      prompt: 'Read the files.',
      model: 'openai:gpt-4o-mini',
      tools: ['read_file'],
      continueAsNewAfterModelCalls: 2,
      workspace: await makeWorkspace(files),
    }),
  );
  expect(result).toMatchObject({ status: 'completed', answer: 'read them all' });

  const ids = await toolActivityIds(workflowId);
  expect(ids).toHaveLength(9);
  for (const id of ids) expect(id).toMatch(wellFormedActivityId);
  expect(new Set(ids).size).toBe(ids.length);

  // The last request holds the whole conversation: each call's result is the file that call asked for.
  const messages = bed.server.requests.at(-1)!.body.messages as Array<{
    role: string;
    tool_calls?: Array<{ id: string; function: { arguments: string } }>;
    tool_call_id?: string;
    content: string;
  }>;
  const asked = new Map(
    messages.flatMap((message) => message.tool_calls ?? []).map((call) => [call.id, JSON.parse(call.function.arguments).path]),
  );
  const answered = messages.filter((message) => message.role === 'tool');
  expect(answered).toHaveLength(9);
  for (const message of answered) expect(message.content).toContain(files[asked.get(message.tool_call_id!)]);
  expect(ids.map((id) => id.slice('tool-'.length)).sort()).toEqual([...asked.keys()].sort());
});
