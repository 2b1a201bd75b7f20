import { parseArgs } from 'node:util';
import type { AgentResult, TurnReply } from '../../core/result';
import { endSessionSignal } from '../../workflows/definitions';
import { awaitResult } from '../../client/await-result';
import { connect, ensureWorkerServes, type CliConnection } from '../connect';
import { statusExitCodes } from '../exit-codes';
import { statusText } from '../event-lines';
import { MessageNotAnsweredError, sendMessage } from '../../client/send-message';
import { unpinSession } from '../../client/session-versioning';
import type { AgentWorkflow } from '../../client/start-agent';
import { UsageError } from '../help';
import { attachmentsFromFlags, fileOption } from './agent-flags';
import { usageSuffix } from '../usage-text';
import { type Output } from '../output';
import { failureMessage } from '../../client/failure-message';

/** `agent send <id> "<message>"`: one message to a session; prints the reply, or why it was not answered (exit 1). */
export function sendCommand(argv: string[], output: Output): Promise<number> {
  return deliver('send', argv, output);
}

/**
 * `agent steer <id> "<message>"`: a steering message for the session's turn in progress, which takes it after its
 * current step; prints that turn's reply (the message gets no answer of its own), or why it was not answered (exit 1).
 * With no turn in progress it is an ordinary message.
 */
export function steerCommand(argv: string[], output: Output): Promise<number> {
  return deliver('steer', argv, output);
}

async function deliver(command: 'send' | 'steer', argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, ...fileOption },
  });
  if (positionals.length !== 2) throw new UsageError(`${command} takes a workflow id and one message, in quotes`);
  const [workflowId, message] = positionals;
  const steer = command === 'steer';
  // Checked and stored before connecting: a refused file sends nothing (exit 2).
  const attachments = await attachmentsFromFlags(values.file);
  const session = await connect({ ensureWorker: true, log: output.info });
  try {
    const handle = session.client.workflow.getHandle(workflowId);
    // Before the status query: a session pinned to a build whose workers are gone would leave it unanswered.
    await unpinSession(handle);
    await ensureWorkerServes(session, workflowId);
    let reply: TurnReply;
    try {
      if (steer) output.info('steering the turn in progress; its reply follows once it ends');
      reply = await sendMessage(handle, message, { steer, attachments });
    } catch (error) {
      output.error(messageFailure(error));
      if (values.json) output.result(JSON.stringify({ workflowId, status: 'failed', error: (error as Error).message }));
      return 1;
    }
    if (values.json) output.result(JSON.stringify({ workflowId, ...reply }));
    else printReply(reply, output);
    return statusExitCodes[reply.status];
  } finally {
    await session.close();
  }
}

/** `agent end <id>`: ends a session once the messages already sent are answered. */
export async function endCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  if (positionals.length !== 1) throw new UsageError('end takes one workflow id');
  const session = await connect({ ensureWorker: true, log: output.info });
  try {
    return await endAndReport(session, positionals[0], output, values.json);
  } finally {
    await session.close();
  }
}

export async function endAndReport(session: CliConnection, workflowId: string, output: Output, json = false): Promise<number> {
  await ensureWorkerServes(session, workflowId);
  const handle = session.client.workflow.getHandle<AgentWorkflow>(workflowId);
  await handle.signal(endSessionSignal);
  try {
    const result: AgentResult = await awaitResult(
      () => handle.result(),
      (error) => output.info(`lost the Temporal server (${error.message}); still waiting for the session to end`),
    );
    output.info(
      `session ${workflowId} ${result.status}: ${result.turns} message(s), ${result.iterations} model call(s), ` +
        `${result.usage.inputTokens} input / ${result.usage.outputTokens} output tokens${usageSuffix(result.usage)}`,
    );
    if (json) output.result(JSON.stringify({ workflowId, ...result }));
    return 0;
  } catch (error) {
    output.error(`session failed: ${failureMessage(error)}`);
    return 1;
  }
}

/** The reply's status and spend (stderr), then its answer: on stdout, or through `printAnswer` (the end of a streamed answer). */
export function printReply(
  reply: TurnReply,
  output: Output,
  printAnswer: (answer: string) => void = (answer) => output.result(answer),
): void {
  if (reply.status !== 'completed') output.info(`(turn ended with status ${statusText(reply.status, reply.guardrail)})`);
  output.info(
    `(${reply.iterations} model call(s), ${reply.usage.inputTokens} input / ${reply.usage.outputTokens} output tokens${usageSuffix(reply.usage)})`,
  );
  printAnswer(reply.answer);
}

/** `message not accepted: …` when the message never entered the session, `message failed: …` when its turn did not end in a reply. */
export function messageFailure(error: unknown): string {
  if (!(error instanceof MessageNotAnsweredError)) return `message failed: ${failureMessage(error)}`;
  return `${error.refused ? 'message not accepted' : 'message failed'}: ${error.message}`;
}
