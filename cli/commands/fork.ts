import { parseArgs } from 'node:util';
import { assertStartable } from '../check-run';
import { connect, withWorkerFallback } from '../connect';
import { statusExitCodes } from '../exit-codes';
import { forkAgent } from '../../client/fork-agent';
import { UsageError } from '../help';
import { runLink } from '../web-ui';
import { parseInteger } from './agent-flags';
import type { Output } from '../output';

/**
 * `agent fork <workflow-id> [--at N] [--id NEW_ID] [--model …] [--agent …] [--prompt "…"] [--json]`:
 * a new run from another's conversation up to message N; the source is never changed.
 */
export async function forkCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      at: { type: 'string' },
      id: { type: 'string' },
      model: { type: 'string' },
      agent: { type: 'string' },
      prompt: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length !== 1) throw new UsageError('fork takes one workflow id: the run to fork');
  const at = values.at !== undefined ? parseInteger('--at', values.at) : undefined;
  if (values.prompt !== undefined && !values.prompt.trim()) throw new UsageError('--prompt must not be empty');
  // Reading the source is a query (a worker answers it); answering --prompt needs a worker too.
  const session = await connect({ ensureWorker: values.prompt !== undefined, log: output.info });
  try {
    const fork = await forkAgent(session.client, {
      workflowId: positionals[0],
      at,
      id: values.id,
      model: values.model,
      agent: values.agent,
      taskQueue: session.taskQueue,
      read: (call) => withWorkerFallback(session, call),
      // A fork that cannot start (an unknown agent, a model whose provider refuses the source's settings) starts nothing.
      beforeStart: assertStartable,
      ...(values.prompt !== undefined && { prompt: values.prompt }),
    }).catch((error: Error) => {
      if (/AgentForkedFrom/.test(error.message)) {
        throw new Error(
          `${error.message}: the namespace has no AgentForkedFrom search attribute; create it once with ` +
            '`temporal operator search-attribute create --name AgentForkedFrom --type Keyword` (the dev servers of this project have it)',
        );
      }
      throw error;
    });
    const { handle, forkedFrom, reply } = fork;
    output.info(
      `forked ${forkedFrom.workflowId} (run ${forkedFrom.runId}) at message ${forkedFrom.messageIndex} into ${handle.workflowId}`,
    );
    const link = runLink(session.uiBase, session.namespace, handle.workflowId);
    if (link) output.info(`Web UI: ${link}`);
    if (values.json) {
      output.result(
        JSON.stringify({ workflowId: handle.workflowId, runId: handle.firstExecutionRunId, forkedFrom, ...(reply && { reply }) }),
      );
    } else {
      output.result(reply ? reply.answer : handle.workflowId);
    }
    if (!reply) output.info(`the fork waits for messages: agent send ${handle.workflowId} "…"`);
    return reply ? statusExitCodes[reply.status] : 0;
  } finally {
    await session.close();
  }
}
