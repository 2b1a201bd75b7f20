import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { ConfigurationError } from '../../core/errors';
import { defineProvider } from '../../providers/define-provider';
import { createAgentWorker } from '../../worker/create-worker';
import { connectToTestServer, uniqueTaskQueue } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';

let environment: TestWorkflowEnvironment;
beforeAll(async () => {
  environment = await connectToTestServer();
});
afterAll(() => environment?.teardown());

it('preloads, as the worker starts running, the SDK of each provider its environment can call, and no other', async () => {
  const preloaded: string[] = [];
  const provider = (name: string, configured: boolean) =>
    defineProvider({
      name,
      checkEnvironment(env) {
        if (!configured && !env.NEVER_SET) throw new ConfigurationError(`${name} needs a key`);
      },
      async preload() {
        preloaded.push(name);
      },
      async call() {
        throw new Error('not called');
      },
    });
  const workspace = await makeWorkspace();
  const worker = await createAgentWorker({
    connection: environment.nativeConnection,
    namespace: environment.namespace ?? 'default',
    taskQueue: uniqueTaskQueue('preload'),
    providers: [provider('ready-gateway', true), provider('keyless-gateway', false)],
    env: {},
    workspaceRoot: workspace,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
  });
  // Not while the worker is made: then it would compete with the start of the workflow threads.
  expect(preloaded).toEqual([]);
  await worker.runUntil(async () => {
    while (preloaded.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  });
  expect(preloaded).toEqual(['ready-gateway']);
});
