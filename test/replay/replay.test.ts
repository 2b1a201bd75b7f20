import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';

const directory = path.join(__dirname, 'histories');

/**
 * Replays every recorded history against the current workflow code. A change
 * that alters the commands a recorded run issued fails here, before it can
 * break runs that are open in production. Record new ones with `npm run record-histories`.
 */
it('replays every recorded history without a determinism error', async () => {
  const files = (await readdir(directory)).filter((file) => file.endsWith('.json')).sort();
  expect(files.length).toBeGreaterThanOrEqual(5);
  const histories = await Promise.all(
    files.map(async (file) => ({ workflowId: file, history: historyFromJSON(JSON.parse(await readFile(path.join(directory, file), 'utf8'))) })),
  );
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } }, histories)) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  expect(failures).toEqual([]);
});
