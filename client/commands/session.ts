import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { AgentResult, TurnReply } from '../../core/result';
import type { AgentInput } from '../../core/resolve-input';
import { endSessionSignal } from '../../workflows/definitions';
import { awaitResult } from '../await-result';
import { cliRegistry } from '../cli-registry';
import { connect, type AgentSession } from '../connect';
import { ProgressFollower } from '../progress';
import { MessageNotAnsweredError, sendMessage } from '../send-message';
import { assertRegistered, assertRunnable, startAgent, type AgentWorkflow } from '../start-agent';
import { UsageError } from '../usage';
import { runLink } from '../web-ui';
import { agentInputFromFlags, agentOptions, attachNegativeNumbers, parseInteger } from './agent-flags';
import { costSuffix } from '../usage-text';
import { failureMessage, type Output } from './output';

/**
 * `agent chat`: starts a session and sends each line typed as a message; `/end`
 * or end of input ends it. A message that is not answered (its turn failed, say)
 * is reported with the provider's words and the chat goes on; the exit code is
 * then 1.
 */
export async function chatCommand(argv: string[], output: Output, input: NodeJS.ReadableStream = process.stdin): Promise<number> {
  const { values, positionals } = parseArgs({
    args: attachNegativeNumbers(argv),
    allowPositionals: true,
    options: { ...agentOptions, 'idle-timeout': { type: 'string' } },
  });
  if (positionals.length > 0) throw new UsageError('chat takes no prompt: type the messages once it starts');
  const agentInput: AgentInput = {
    ...agentInputFromFlags(values),
    session: { idleTimeoutSeconds: values['idle-timeout'] ? parseInteger('--idle-timeout', values['idle-timeout']) : 3600 },
  };
  await assertRunnable(agentInput);
  const session = await connect({ ensureWorker: true, log: output.info, beforeOwnWorker: () => assertRegistered(agentInput, cliRegistry()) });
  try {
    const started = await startAgent(session.client, agentInput, { taskQueue: session.taskQueue, workflowId: values.id });
    output.info(`session ${started.workflowId} started; type a message, or /end to finish`);
    const link = runLink(session.uiBase, session.namespace, started.workflowId);
    if (link) output.info(`Web UI: ${link}`);
    // By workflow id only, so messages reach whichever run of the session is current.
    const handle = session.client.workflow.getHandle<AgentWorkflow>(started.workflowId);
    const progress = new ProgressFollower(handle, output.info);
    const lines = createInterface({ input, terminal: false });
    let failedMessages = 0;
    for await (const line of lines) {
      const message = line.trim();
      if (!message) continue;
      if (message === '/end') break;
      const reply = sendMessage(handle, message);
      await progress.follow(reply);
      try {
        printReply(await reply, output);
      } catch (error) {
        failedMessages++;
        output.error(messageFailure(error));
      }
    }
    lines.close();
    const ended = await endAndReport(session, handle.workflowId, output);
    return failedMessages > 0 ? Math.max(ended, 1) : ended;
  } finally {
    await session.close();
  }
}

/** `agent send <id> "<message>"`: one message to a session; prints the reply, or why it was not answered (exit 1). */
export async function sendCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  if (positionals.length !== 2) throw new UsageError('send takes a workflow id and one message, in quotes');
  const [workflowId, message] = positionals;
  const session = await connect({ ensureWorker: true, log: output.info });
  try {
    const handle = session.client.workflow.getHandle(workflowId);
    let reply: TurnReply;
    try {
      reply = await sendMessage(handle, message);
    } catch (error) {
      output.error(messageFailure(error));
      if (values.json) output.result(JSON.stringify({ workflowId, status: 'failed', error: (error as Error).message }));
      return 1;
    }
    if (values.json) output.result(JSON.stringify({ workflowId, ...reply }));
    else printReply(reply, output);
    return reply.status === 'completed' ? 0 : 3;
  } finally {
    await session.close();
  }
}

/** `agent end <id>`: ends a session once the messages already sent are answered. */
export async function endCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  if (positionals.length !== 1) throw new UsageError('end takes one workflow id');
  const session = await connect({ ensureWorker: true, log: output.info });
  try {
    return await endAndReport(session, positionals[0], output, values.json);
  } finally {
    await session.close();
  }
}

async function endAndReport(session: AgentSession, workflowId: string, output: Output, json = false): Promise<number> {
  const handle = session.client.workflow.getHandle<AgentWorkflow>(workflowId);
  await handle.signal(endSessionSignal);
  try {
    const result: AgentResult = await awaitResult(
      () => handle.result(),
      (error) => output.info(`lost the Temporal server (${error.message}); still waiting for the session to end`),
    );
    output.info(
      `session ${workflowId} ${result.status}: ${result.turns} message(s), ${result.iterations} model turn(s), ` +
        `${result.usage.inputTokens} input / ${result.usage.outputTokens} output tokens${costSuffix(result.usage)}`,
    );
    if (json) output.result(JSON.stringify({ workflowId, ...result }));
    return 0;
  } catch (error) {
    output.error(`session failed: ${failureMessage(error)}`);
    return 1;
  }
}

function printReply(reply: TurnReply, output: Output): void {
  if (reply.status !== 'completed') output.info(`(turn ended with status ${reply.status})`);
  output.info(`(${reply.iterations} model turn(s), ${reply.usage.inputTokens} input / ${reply.usage.outputTokens} output tokens${costSuffix(reply.usage)})`);
  output.result(reply.answer);
}

/** `message not accepted: …` when the message never entered the session, `message failed: …` when its turn did not end in a reply. */
function messageFailure(error: unknown): string {
  if (!(error instanceof MessageNotAnsweredError)) return `message failed: ${failureMessage(error)}`;
  return `${error.refused ? 'message not accepted' : 'message failed'}: ${error.message}`;
}
