import { parseArgs } from 'node:util';
import { WorkflowFailedError } from '@temporalio/client';
import type { AgentInput } from '../../core/resolve-input';
import type { AgentResult } from '../../core/result';
import { ApprovalPrompter } from '../approval-prompts';
import { awaitResult } from '../await-result';
import { cliRegistry } from '../cli-registry';
import { connect } from '../connect';
import { interrupted, untilInterrupted } from '../interrupt';
import { LineQueue } from '../line-queue';
import { ProgressFollower } from '../progress';
import { assertRegistered, assertRunnable, startAgent } from '../start-agent';
import { UsageError } from '../usage';
import { runLink } from '../web-ui';
import { agentInputFromFlags, agentOptions, attachNegativeNumbers } from './agent-flags';
import { usageSuffix } from '../usage-text';
import { failureMessage, type Output } from './output';

export async function runCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: attachNegativeNumbers(argv),
    allowPositionals: true,
    options: { ...agentOptions, json: { type: 'boolean', default: false }, detach: { type: 'boolean', default: false } },
  });
  if (positionals.length !== 1) throw new UsageError('run takes exactly one prompt, in quotes');
  const input: AgentInput = { prompt: positionals[0], ...agentInputFromFlags(values) };
  await assertRunnable(input);

  const session = await connect({ ensureWorker: !values.detach, log: output.info, beforeOwnWorker: () => assertRegistered(input, cliRegistry()) });
  try {
    const handle = await startAgent(session.client, input, { taskQueue: session.taskQueue, workflowId: values.id });
    const runId = handle.firstExecutionRunId;
    output.info(`started ${handle.workflowId} (run ${runId})`);
    const link = runLink(session.uiBase, session.namespace, handle.workflowId, runId);
    if (link) output.info(`Web UI: ${link}`);
    const ids = { workflowId: handle.workflowId, runId };

    if (values.detach) {
      if (session.embedded) output.info('note: the embedded server stops with this command; the run resumes the next time it starts');
      output.result(values.json ? JSON.stringify({ ...ids, status: 'running' }) : handle.workflowId);
      return 0;
    }

    const result = untilInterrupted(
      awaitResult(
        () => handle.result(),
        (error) => output.info(`lost the Temporal server (${error.message}); the run is durable, still waiting for it`),
      ),
    );
    // A person at a terminal is asked about each call that needs approval; anyone else is told how to decide it.
    const lines = process.stdin.isTTY ? new LineQueue(process.stdin) : undefined;
    const over = new AbortController();
    void result.finally(() => over.abort()).catch(() => {});
    const prompter = new ApprovalPrompter(
      handle,
      lines &&
        ((question) => {
          output.info(question);
          return lines.next(over.signal);
        }),
      output.info,
    );
    await new ProgressFollower(handle, output.info, (pending) => prompter.consider(pending)).follow(result).finally(() => lines?.close());
    let outcome: AgentResult | typeof interrupted;
    try {
      outcome = await result;
    } catch (error) {
      const message = failureMessage(error);
      output.error(`run failed: ${message}`);
      if (values.json) output.result(JSON.stringify({ ...ids, status: failedStatus(error), error: message }));
      return 1;
    }
    if (outcome === interrupted) {
      const where = session.embedded ? 'the next time the embedded server starts' : 'on the workers';
      output.info(`stopped following ${handle.workflowId}; the run goes on ${where} (agent show ${handle.workflowId})`);
      return 130;
    }
    if (outcome.status !== 'completed') output.info(`run ended with status ${outcome.status}`);
    output.info(
      `${outcome.iterations} iteration(s), ${outcome.usage.inputTokens} input / ${outcome.usage.outputTokens} output tokens${usageSuffix(outcome.usage)}`,
    );
    output.result(values.json ? JSON.stringify({ ...ids, ...outcome }) : outcome.answer);
    return outcome.status === 'completed' ? 0 : 3;
  } finally {
    await session.close();
  }
}

function failedStatus(error: unknown): string {
  if (error instanceof WorkflowFailedError && error.cause?.name === 'CancelledFailure') return 'cancelled';
  if (error instanceof WorkflowFailedError && error.cause?.name === 'TerminatedFailure') return 'terminated';
  return 'failed';
}
