// Every run recorded in histories/ must replay against this code: a change that would break the runs in flight
// (a workflow changed without a patch, a durable-agent upgrade that is not replay-safe) fails here, before a deploy.
import path from 'node:path';
import { expectHistoriesToReplay } from 'durable-agent/testing';
import { agents } from '../src/agents';

test('the recorded runs replay against this code', async () => {
  const runs = await expectHistoriesToReplay(path.join(__dirname, '..', 'histories'), { agents });

  expect(runs.map((run) => run.workflowId)).toEqual(['order-8/ask-researcher', 'order-8']);
});
