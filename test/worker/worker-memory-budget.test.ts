import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { ConfigurationError } from '../../core/errors';
import { createAgentWorker } from '../../worker/create-worker';
import { workflowCacheSize } from '../../worker/settings';
import { connectToTestServer, testWorkspaceRoot, uniqueTaskQueue } from '../support/temporal';

// A worker's memory is its base (~300 MB) plus ~0.5 MB per cached session (bench/NOTES.md, "Sessions per worker").
// AGENT_WORKER_MEMORY_MB turns a container's limit into the number of sessions the worker keeps cached.

describe('the workflow cache sized from AGENT_WORKER_MEMORY_MB', () => {
  const roomyHeapMb = 4096;

  it('caches as many sessions as fit beside the worker base', () => {
    expect(workflowCacheSize({ AGENT_WORKER_MEMORY_MB: '2048' }, roomyHeapMb)).toBe(3496);
    expect(workflowCacheSize({ AGENT_WORKER_MEMORY_MB: '4096' }, roomyHeapMb)).toBe(7592);
  });

  it('never caches more than the V8 heap holds, whatever the budget', () => {
    expect(workflowCacheSize({ AGENT_WORKER_MEMORY_MB: '65536' }, 1024)).toBe(2896);
  });

  it("leaves the SDK's default without the setting", () => {
    expect(workflowCacheSize({}, roomyHeapMb)).toBeUndefined();
    expect(workflowCacheSize({ AGENT_WORKER_MEMORY_MB: '' }, roomyHeapMb)).toBeUndefined();
  });

  it('refuses a value that is not a memory size, or leaves no room for sessions, naming the setting', () => {
    for (const bad of ['2GB', 'lots', '0', '-512', 'Infinity'])
      expect(() => workflowCacheSize({ AGENT_WORKER_MEMORY_MB: bad }, roomyHeapMb)).toThrow(
        new ConfigurationError(`AGENT_WORKER_MEMORY_MB must be the worker's memory in megabytes, e.g. 2048 (got "${bad}")`),
      );
    expect(() => workflowCacheSize({ AGENT_WORKER_MEMORY_MB: '256' }, roomyHeapMb)).toThrow(/leaves no room for cached sessions/);
  });

  describe('in createAgentWorker', () => {
    let environment: TestWorkflowEnvironment;
    beforeAll(async () => {
      environment = await connectToTestServer();
    });
    afterAll(() => environment?.teardown());

    /** The compiled options of a worker made with `env`; the worker runs and stops, leaving nothing open. */
    const optionsWith = async (env: NodeJS.ProcessEnv, overrides?: { maxCachedWorkflows: number }) => {
      const worker = await workerWith(env, overrides);
      await worker.runUntil(async () => {});
      return worker.options;
    };
    const workerWith = (env: NodeJS.ProcessEnv, overrides?: { maxCachedWorkflows: number }) =>
      createAgentWorker({
        connection: environment.nativeConnection,
        namespace: environment.namespace ?? 'default',
        taskQueue: uniqueTaskQueue('memory-budget'),
        env,
        workspaceRoot: testWorkspaceRoot,
        workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
        overrides,
      });

    it("sets the worker's maxCachedWorkflows, unless the caller's own overrides set it", async () => {
      expect((await optionsWith({ AGENT_WORKER_MEMORY_MB: '1024' })).maxCachedWorkflows).toBe(
        workflowCacheSize({ AGENT_WORKER_MEMORY_MB: '1024' }),
      );
      expect((await optionsWith({ AGENT_WORKER_MEMORY_MB: '1024' }, { maxCachedWorkflows: 0 })).maxCachedWorkflows).toBe(0);
      expect((await optionsWith({})).maxCachedWorkflows).toBeGreaterThan(0);
    });

    it('fails at start-up on a bad value, before the worker polls', async () => {
      await expect(workerWith({ AGENT_WORKER_MEMORY_MB: 'half' })).rejects.toThrow(ConfigurationError);
    });
  });
});
