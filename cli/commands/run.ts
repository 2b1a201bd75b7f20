import { parseArgs } from 'node:util';
import { WorkflowFailedError } from '@temporalio/client';
import type { AgentInput } from '../../core/resolve-input';
import type { AgentResult } from '../../core/result';
import { ApprovalPrompter } from '../approval-prompts';
import { awaitResult } from '../../client/await-result';
import { assertProviderCredentials, assertStartable } from '../check-run';
import { connect, ensureWorkerServes } from '../connect';
import { statusExitCodes } from '../exit-codes';
import { statusText } from '../event-lines';
import { interrupted, InterruptListener, untilInterrupted } from '../interrupt';
import { LineQueue } from '../line-queue';
import { startAgent } from '../../client/start-agent';
import { programName, UsageError } from '../help';
import { embeddedServerClosing, runLink } from '../web-ui';
import { RunFollower } from '../follow-run';
import { StreamRenderer } from '../stream-renderer';
import { printable } from '../terminal-text';
import {
  agentInputFromFlags,
  agentOptions,
  attachmentsFromFlags,
  fileOption,
  attachNegativeNumbers,
  tenancyFromFlags,
  streamWanted,
} from './agent-flags';
import { usageSuffix } from '../usage-text';
import { streamedText, type Output } from '../output';
import { failureMessage } from '../../client/failure-message';
import { timingMark } from '../../telemetry/startup-timing';
import { cancelledOnStop } from '../cancel-on-stop';

/** How long the stream may take to tell the rest of a run that has ended (usually one poll, 200 ms or less). */
const streamDrainMs = 5_000;

export async function runCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: attachNegativeNumbers(argv),
    allowPositionals: true,
    options: {
      ...agentOptions,
      ...fileOption,
      json: { type: 'boolean', default: false },
      detach: { type: 'boolean', default: false },
    },
  });
  if (positionals.length !== 1) throw new UsageError('run takes exactly one prompt, in quotes');
  const stream = streamWanted(values, { json: values.json });
  const attachments = await attachmentsFromFlags(values.file);
  const input: AgentInput = {
    prompt: positionals[0],
    ...agentInputFromFlags(values),
    stream,
    ...(attachments.length > 0 && { attachments }),
  };
  // Before anything starts, whoever's worker will run it: a run that cannot start is refused here (exit 2).
  await assertStartable(input);
  const tenancy = tenancyFromFlags(values);

  const session = await connect({
    ensureWorker: !values.detach,
    log: output.info,
    beforeOwnWorker: () => assertProviderCredentials(input),
  });
  try {
    const handle = await startAgent(session.client, input, { taskQueue: session.taskQueue, workflowId: values.id, ...tenancy });
    // Before the line that says the run started: a script that reads it may press Ctrl-C at once.
    const interrupt = new InterruptListener();
    const runId = handle.firstExecutionRunId;
    timingMark('workflow started');
    output.info(`started ${handle.workflowId} (run ${runId})`);
    const link = runLink(session.uiBase, session.namespace, handle.workflowId, runId);
    if (link) output.info(`Web UI: ${link}`);
    const ids = { workflowId: handle.workflowId, runId };

    if (values.detach) {
      interrupt.close();
      if (session.embedded) output.info('note: the run resumes the next time the embedded server starts');
      output.result(values.json ? JSON.stringify({ ...ids, status: 'running' }) : handle.workflowId);
      return 0;
    }

    // connect() may have counted on a worker that has just exited (an earlier run's): prove one serves this run.
    await interrupt.race(ensureWorkerServes(session, handle.workflowId));

    // A person at a terminal is asked about each call that needs approval; anyone else is told how to decide it.
    const lines = process.stdin.isTTY ? new LineQueue(process.stdin) : undefined;
    const prompter = new ApprovalPrompter(
      handle,
      lines &&
        ((question, withdrawn) => {
          output.info(question);
          return lines.next(withdrawn);
        }),
      output.info,
      lines,
    );
    // The run's story from its stream: progress on stderr, and (streaming, never into --json output, which stays one
    // line) the answer as it is written on stdout.
    const showText = stream && !values.json;
    const renderer = new StreamRenderer(
      { text: streamedText(output), line: output.info, progress: output.info },
      { text: showText, marks: false, approvals: prompter },
    );
    const follower = new RunFollower(session.client, handle.workflowId, renderer, output.info, { showsText: showText });
    // Cancelled on Ctrl-C before the connection closes: a wait still in flight (or waiting to be retried) on a closed
    // connection threw `Channel has been shut down`, uncaught, after the hint.
    const waiting = new AbortController();
    const result = untilInterrupted(
      cancelledOnStop(waiting.signal, () =>
        awaitResult(
          () => handle.result(),
          (error) => output.info(`lost the Temporal server (${error.message}); the run is durable, still waiting for it`),
        ),
      ),
      interrupt,
    );
    let outcome: AgentResult | typeof interrupted;
    try {
      outcome = await result;
    } catch (error) {
      await follower.finish(streamDrainMs);
      lines?.close();
      const message = failureMessage(error);
      output.error(`run failed: ${message}`);
      if (values.json) output.result(JSON.stringify({ ...ids, status: failedStatus(error), error: message }));
      return 1;
    }
    // The stream ends with the run: what it still holds (the last tool lines, the turn's end) is shown before the totals.
    if (outcome === interrupted) {
      waiting.abort();
      follower.stop();
    } else await follower.finish(streamDrainMs);
    prompter.withdrawAll();
    lines?.close();
    if (outcome === interrupted) {
      const where = session.embedded ? 'the next time the embedded server starts' : 'on the workers';
      output.info(`stopped following ${handle.workflowId}; the run goes on ${where} (agent show ${handle.workflowId})`);
      return 130;
    }
    if (renderer.turnEnds === 0)
      output.info(`(the run ended before its last events reached this terminal: agent show ${handle.workflowId} has them all)`);
    if (outcome.status !== 'completed') output.info(`run ended with status ${statusText(outcome.status, outcome.guardrail)}`);
    output.info(
      `${outcome.iterations} iteration(s), ${outcome.usage.inputTokens} input / ${outcome.usage.outputTokens} output tokens${usageSuffix(outcome.usage)}`,
    );
    if (values.json) output.result(JSON.stringify({ ...ids, ...outcome }));
    else if (showText) renderer.complete(outcome.answer, 1);
    else output.result(printable(outcome.answer));
    return statusExitCodes[outcome.status];
  } finally {
    // The link printed above dies with the server this command started: say so, and how to keep it.
    if (session.embedded) output.info(embeddedServerClosing(programName));
    await session.close();
  }
}

function failedStatus(error: unknown): string {
  if (error instanceof WorkflowFailedError && error.cause?.name === 'CancelledFailure') return 'cancelled';
  if (error instanceof WorkflowFailedError && error.cause?.name === 'TerminatedFailure') return 'terminated';
  return 'failed';
}
