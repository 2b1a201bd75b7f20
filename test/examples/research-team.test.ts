import os from 'node:os';
import { exampleApp } from '../support/example-app';
import { anthropicReply, openaiReply } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { agentOf, scriptByAgent } from '../support/script-by-agent';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';

// examples/research-team is a Temporal app of its own that uses durable-agent as a library: installed
// as a packed copy (as from a registry), with its own worker (the AgentPlugin), its own client code and
// its own workflow, which runs an agent as its child. This installs it afresh and runs it.

const bed = useTestBed();
const app = exampleApp('research-team');
jest.setTimeout(300_000);

beforeAll(() => app.install());

it('installs as a library, type-checks, and runs two agents with a subagent and a handoff from its own worker and client', async () => {
  expect(await app.typeCheck()).toEqual({ code: 0, output: '' });

  scriptByAgent(bed.server, {
    assistant: [
      openaiReply({ toolCalls: [{ id: 'call_research', name: 'researcher', arguments: { task: 'What does roadmap.md say?' } }] }),
      openaiReply({ toolCalls: [{ id: 'call_handoff', name: 'transfer_to_billing', arguments: {} }] }),
      openaiReply({ content: 'The roadmap: ship the library in Q3.' }),
    ],
    researcher: [
      anthropicReply({ toolCalls: [{ id: 'toolu_read', name: 'read_file', arguments: { path: 'roadmap.md' } }] }),
      anthropicReply({ text: 'roadmap.md says: Q3: ship the durable agent library.' }),
    ],
    billing: [
      openaiReply({ toolCalls: [{ id: 'call_invoice', name: 'lookup_invoice', arguments: { number: '7' } }] }),
      openaiReply({ content: 'Invoice 7 is paid.' }),
    ],
  });
  const taskQueue = uniqueTaskQueue('research-team');
  const run = await app.npm(['run', '-s', 'start'], {
    ...bed.server.providerEnv,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
    EXAMPLE_TASK_QUEUE: taskQueue,
    AGENT_WORKSPACE_ROOT: os.tmpdir(),
  });
  expect({ code: run.code, errors: run.stderr.split('\n').filter((line) => /error/i.test(line)) }).toEqual({
    code: 0,
    errors: [],
  });
  const [agentRun, briefing] = run.stdout.trim().split('\n');
  expect(agentRun).toMatch(/^assistant run agent-\S+: completed, answered by billing: Invoice 7 is paid\.$/);
  expect(briefing).toBe('Briefing on the roadmap (completed, by assistant): The roadmap: ship the library in Q3.');

  // The researcher ran as a child workflow of the agent run, and the briefing's agent as a child of the app's workflow.
  const workflowId = /^assistant run (\S+):/.exec(agentRun)![1];
  const children = (await fetchEvents(bed.environment.client, workflowId)).flatMap((event) =>
    event.startChildWorkflowExecutionInitiatedEventAttributes
      ? [event.startChildWorkflowExecutionInitiatedEventAttributes.workflowId]
      : [],
  );
  expect(children).toEqual([`${workflowId}/call_research`]);
  const briefingChild = await bed.environment.client.workflow.getHandle('briefing-the roadmap').describe();
  expect(briefingChild.status.name).toBe('COMPLETED');
  expect(briefingChild.raw.workflowExecutionInfo?.parentExecution?.workflowId).toMatch(/^briefing-run-/);

  // The tool the app defined ran, and billing got the handoff on its own model.
  const billingRequests = bed.server.requests.filter((request) => agentOf(request) === 'billing');
  expect(billingRequests[1].body.messages.at(-1)).toEqual({
    role: 'tool',
    tool_call_id: 'call_invoice',
    content: expect.stringContaining('"status":"paid"'),
  });
  expect(bed.server.refusals).toEqual([]);
});
