import { openaiReply } from '../support/fake-model-server';
import { scriptByPrompt, toolResultsOf } from '../support/script-by-prompt';
import { createTestWorker, runAgent, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { makeWorkspace } from '../support/workspace';

// Issue 18, item 3: one model-given regular expression kept a worker's event loop busy for minutes, and every other
// run on that worker with it. Each test runs a search and an unrelated run on ONE worker, at the same time.

const bed = useTestBed();

async function searchBesideAnotherRun(pattern: string, files: Record<string, string>) {
  const workspace = await makeWorkspace({ 'plain.txt': 'nothing to see', ...files });
  const received = scriptByPrompt(bed.server, {
    search: [
      openaiReply({ toolCalls: [{ id: 'search', name: 'search_files', arguments: { pattern } }] }),
      openaiReply({ content: 'searched' }),
    ],
    read: [
      openaiReply({ toolCalls: [{ id: 'read', name: 'read_file', arguments: { path: 'plain.txt' } }] }),
      openaiReply({ content: 'read it' }),
    ],
  });
  const taskQueue = uniqueTaskQueue('regex-stall');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const run = (prompt: string) =>
    runAgent(bed.environment, taskQueue, {
      prompt,
      model: 'openai:gpt-4o-mini',
      tools: ['search_files', 'read_file'],
      workspace,
    }).then(({ result }) => ({ result, finishedAt: Date.now() }));
  const [search, read] = await worker.runUntil(Promise.all([run('search'), run('read')]));
  expect(search.result.status).toBe('completed');
  expect(read.result.status).toBe('completed');
  expect(toolResultsOf(received.read[1])).toEqual({ read: 'nothing to see' });
  return {
    searchResult: toolResultsOf(received.search[1]).search,
    searchResultAt: received.search[1].receivedAt,
    readFinishedAt: read.finishedAt,
  };
}

it('searches a catastrophic-backtracking pattern in linear time while another run on the worker finishes', async () => {
  // With JavaScript's backtracking RegExp, (a+)+$ on one line of 40 "a"s and a "b" takes about 2^40 steps (the
  // report: ~110 s for 36 characters, doubling with each one); this test would then time out with both runs stuck.
  const lines = Array.from({ length: 200 }, () => `${'a'.repeat(40)}b`).join('\n');
  const { searchResult } = await searchBesideAnotherRun('(a+)+$', { 'stall.txt': lines });
  expect(searchResult).toBe('no matches for /(a+)+$/');
});

it('stops an expensive linear search at its time budget, and the other run finishes while it is still matching', async () => {
  // Linear is not cheap: this pattern costs re2js about two seconds per 4 KB line here, over a minute for the file. Matched in the
  // worker's own thread, each line would stall the other run; matched in a thread of its own, the other run finishes
  // first, and the search stops at its 20 s budget (search_files's activity timeout is 60 s) and says so.
  const pattern = '.{0,1000}.{0,1000}.{0,1000}.{0,1000}c$';
  const lines = Array.from({ length: 40 }, () => `${'abc'.repeat(1365)}d`).join('\n');
  const { searchResult, searchResultAt, readFinishedAt } = await searchBesideAnotherRun(pattern, { 'heavy.txt': lines });
  expect(searchResult.split('\n').at(-1)).toBe('[search stopped after 20 s: narrow the path or simplify the pattern]');
  expect(readFinishedAt).toBeLessThan(searchResultAt);
});
