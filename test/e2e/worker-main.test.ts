import os from 'node:os';
import { spawn } from 'node:child_process';
import { collect } from '../support/cli';
import { typescriptArgs } from '../support/typescript-process';
import { uniqueTaskQueue, resolved } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { openaiReply } from '../support/fake-model-server';

const bed = useTestBed();

it.each(['SIGTERM', 'SIGINT'] as const)(
  'npm run worker serves the task queue from TEMPORAL_ADDRESS and exits cleanly on %s',
  async (signal) => {
    const taskQueue = uniqueTaskQueue('worker-main');
    const child = spawn(process.execPath, typescriptArgs('worker/main.ts'), {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        AGENT_WORKSPACE_ROOT: os.tmpdir(),
        TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
        TEMPORAL_NAMESPACE: 'default',
        AGENT_TASK_QUEUE: taskQueue,
        AGENT_WORKFLOW_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE,
        AGENT_TRANSCRIPT_DIR: process.env.AGENT_TRANSCRIPT_DIR,
        AGENT_PAYLOAD_DIR: process.env.AGENT_PAYLOAD_DIR,
        ...bed.server.providerEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = collect(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitFor('the worker to start polling', () => stderr.includes(`worker polling task queue "${taskQueue}"`), {
      timeoutMs: 60_000,
    });

    bed.server.enqueue(openaiReply({ content: 'served by npm run worker' }));
    const result = await bed.environment.client.workflow.execute('agentWorkflow', {
      taskQueue,
      workflowId: `worker-main-${signal}-${Date.now()}`,
      args: [resolved({ prompt: 'hello', model: 'openai:gpt-4o-mini', workspace: bed.workspace })],
    });
    expect(result).toMatchObject({ answer: 'served by npm run worker', status: 'completed' });

    child.kill(signal);
    const { code } = await exited;
    expect(code).toBe(0);
  },
);
