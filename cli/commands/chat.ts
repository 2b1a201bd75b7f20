import { parseArgs } from 'node:util';
import type { AgentInput } from '../../core/resolve-input';
import { interruptUpdate } from '../../workflows/definitions';
import { ApprovalPrompter } from '../approval-prompts';
import { cliRegistry } from '../registry';
import { connect, ensureWorkerServes } from '../connect';
import { LineQueue } from '../line-queue';
import { ProgressFollower } from '../progress';
import { sendMessage } from '../../client/send-message';
import { assertRegistered, assertRunnable, startAgent, type AgentWorkflow } from '../../client/start-agent';
import { UsageError } from '../help';
import { runLink } from '../web-ui';
import { followStream } from '../../client/follow-stream';
import { StreamPrinter } from '../stream-printer';
import { agentInputFromFlags, agentOptions, attachNegativeNumbers, parseInteger, streamWanted } from './agent-flags';
import { streamedText } from './run';
import type { Output } from '../output';
import { endAndReport, messageFailure, printReply } from './session';

/** What needs approval in a chat unless --approve-tools says otherwise: a file write is someone's file. */
const chatApprovesByDefault = ['write_file'];

/**
 * `agent chat`: starts a session and sends each line typed as a message; `/end`
 * or end of input ends it. A tool call that needs approval is asked about on
 * the next line (`approve write_file notes.txt? [y/N]`). Ctrl-C during a turn
 * interrupts that turn and the chat goes on; a second Ctrl-C (or one between
 * turns) leaves the chat, the session still alive for `agent send` or another
 * terminal. A message that is not answered is reported with the provider's
 * words and the chat goes on; the exit code is then 1.
 */
export async function chatCommand(argv: string[], output: Output, input: NodeJS.ReadableStream = process.stdin): Promise<number> {
  const { values, positionals } = parseArgs({
    args: attachNegativeNumbers(argv),
    allowPositionals: true,
    options: { ...agentOptions, 'idle-timeout': { type: 'string' } },
  });
  if (positionals.length > 0) throw new UsageError('chat takes no prompt: type the messages once it starts');
  const stream = streamWanted(values);
  const agentInput: AgentInput = {
    ...agentInputFromFlags(values, chatApprovesByDefault),
    stream,
    session: { idleTimeoutSeconds: values['idle-timeout'] ? parseInteger('--idle-timeout', values['idle-timeout']) : 3600 },
  };
  await assertRunnable(agentInput);
  const session = await connect({ ensureWorker: true, log: output.info, beforeOwnWorker: () => assertRegistered(agentInput, cliRegistry()) });
  const lines = new LineQueue(input);
  const leave = new AbortController();
  let turn: AbortController | undefined;
  // Ctrl-C: the first one during a turn interrupts it; the next one leaves.
  const onCtrlC = () => {
    if (turn && !turn.signal.aborted) {
      turn.abort();
      output.info('interrupting the turn… (Ctrl-C again to leave the chat; the session stays alive)');
      void handle
        ?.executeUpdate(interruptUpdate)
        .catch((error: Error) => output.info(`could not interrupt: ${error.cause instanceof Error ? error.cause.message : error.message}`));
      return;
    }
    leave.abort();
  };
  let handle: ReturnType<typeof session.client.workflow.getHandle<AgentWorkflow>> | undefined;
  process.on('SIGINT', onCtrlC);
  try {
    const started = await startAgent(session.client, agentInput, { taskQueue: session.taskQueue, workflowId: values.id });
    output.info(`session ${started.workflowId} started; type a message, or /end to finish`);
    const link = runLink(session.uiBase, session.namespace, started.workflowId);
    if (link) output.info(`Web UI: ${link}`);
    // connect() may have counted on a worker that has just exited (an earlier chat's): prove one serves this session.
    await ensureWorkerServes(session, started.workflowId);
    // By workflow id only, so messages reach whichever run of the session is current.
    handle = session.client.workflow.getHandle<AgentWorkflow>(started.workflowId);
    // Each answer as it is written, for the whole session (across its runs); the reply then completes it.
    const printer = stream ? new StreamPrinter({ text: streamedText(output), line: output.info }, { lines: false }) : undefined;
    if (printer) {
      void followStream(session.client, started.workflowId, { from: 0, onEvent: (item) => printer.handle(item.data), signal: leave.signal }).catch(
        (error: Error) => output.info(`stopped printing answers as they are written: ${error.message}`),
      );
    }
    let failedMessages = 0;
    for (;;) {
      const line = await lines.next(leave.signal);
      if (leave.signal.aborted) return left(started.workflowId, output);
      if (line === undefined || line.trim() === '/end') break;
      const message = line.trim();
      if (!message) continue;
      turn = new AbortController();
      const answered = new AbortController();
      const stopAsking = AbortSignal.any([answered.signal, leave.signal]);
      const prompter = new ApprovalPrompter(
        handle,
        (question) => {
          output.info(question);
          return lines.next(stopAsking);
        },
        output.info,
      );
      const reply = sendMessage(handle, message).finally(() => answered.abort());
      const progress = new ProgressFollower(handle, output.info, (pending) => prompter.consider(pending));
      await progress.follow(Promise.race([reply, aborted(leave.signal)]));
      if (leave.signal.aborted) return left(started.workflowId, output);
      try {
        printReply(await reply, output, printer && ((answer) => printer.complete(answer)));
      } catch (error) {
        failedMessages++;
        output.error(messageFailure(error));
      } finally {
        turn = undefined;
      }
    }
    const ended = await endAndReport(session, handle.workflowId, output);
    return failedMessages > 0 ? Math.max(ended, 1) : ended;
  } finally {
    process.off('SIGINT', onCtrlC);
    lines.close();
    await session.close();
  }
}

function left(workflowId: string, output: Output): number {
  output.info(`left the chat; session ${workflowId} is still alive: agent send ${workflowId} "…", or agent end ${workflowId}`);
  return 130;
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
