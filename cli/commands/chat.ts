import { parseArgs } from 'node:util';
import type { AgentInput } from '../../core/resolve-input';
import { interruptUpdate } from '../../workflows/definitions';
import { ApprovalPrompter } from '../approval-prompts';
import { assertAttachmentsAccepted, assertProviderCredentials, assertStartable } from '../check-run';
import { connect, ensureWorkerServes } from '../connect';
import { LineQueue } from '../line-queue';
import { MessageNotAnsweredError, sendMessage } from '../../client/send-message';
import { startAgent, type AgentWorkflow } from '../../client/start-agent';
import { programName, UsageError } from '../help';
import { batchSessionProblem } from '../../core/batch-settings';
import { embeddedServerClosing, runLink } from '../web-ui';
import { RunFollower } from '../follow-run';
import { StreamRenderer } from '../stream-renderer';
import { printable } from '../terminal-text';
import {
  agentInputFromFlags,
  agentOptions,
  attachNegativeNumbers,
  tenancyFromFlags,
  parseInteger,
  streamWanted,
  attachmentsFromFlags,
  fileOption,
} from './agent-flags';
import { streamedText, type Output } from '../output';
import { endAndReport, messageFailure, printReply } from './session';

/** How long a reply may wait for the stream to tell its turn's end (usually a poll away) before it is shown from the reply. */
const streamLagMs = 10_000;

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
    options: { ...agentOptions, ...fileOption, 'idle-timeout': { type: 'string' } },
  });
  if (positionals.length > 0) throw new UsageError('chat takes no prompt: type the messages once it starts');
  if (values.batch) throw new UsageError(`--batch: ${batchSessionProblem}`);
  const stream = streamWanted(values);
  const agentInput: AgentInput = {
    ...agentInputFromFlags(values, chatApprovesByDefault),
    stream,
    session: { idleTimeoutSeconds: values['idle-timeout'] ? parseInteger('--idle-timeout', values['idle-timeout']) : 3600 },
  };
  // Before anything starts, whoever's worker will run it: a session that cannot start is refused here (exit 2).
  await assertStartable(agentInput);
  // The --file flags go with the first message typed; checked and stored now, so a refused one starts nothing.
  let firstAttachments = await attachmentsFromFlags(values.file);
  assertAttachmentsAccepted(agentInput, firstAttachments);
  const tenancy = tenancyFromFlags(values);
  const session = await connect({
    ensureWorker: true,
    log: output.info,
    beforeOwnWorker: () => assertProviderCredentials(agentInput),
  });
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
        .catch((error: Error) =>
          output.info(`could not interrupt: ${error.cause instanceof Error ? error.cause.message : error.message}`),
        );
      return;
    }
    leave.abort();
  };
  let handle: ReturnType<typeof session.client.workflow.getHandle<AgentWorkflow>> | undefined;
  let follower: RunFollower | undefined;
  process.on('SIGINT', onCtrlC);
  try {
    const started = await startAgent(session.client, agentInput, {
      taskQueue: session.taskQueue,
      workflowId: values.id,
      ...tenancy,
    });
    output.info(`session ${started.workflowId} started; type a message, or /end to finish`);
    const link = runLink(session.uiBase, session.namespace, started.workflowId);
    if (link) output.info(`Web UI: ${link}`);
    // connect() may have counted on a worker that has just exited (an earlier chat's): prove one serves this session.
    await ensureWorkerServes(session, started.workflowId);
    // By workflow id only, so messages reach whichever run of the session is current.
    handle = session.client.workflow.getHandle<AgentWorkflow>(started.workflowId);
    // Every question about a tool call is asked on the next line typed, until the call is settled or the person leaves.
    const prompter = new ApprovalPrompter(
      handle,
      (question, withdrawn) => {
        output.info(question);
        return lines.next(AbortSignal.any([withdrawn, leave.signal]));
      },
      output.info,
      // At a terminal, a person may approve with arguments of their own (an editor, or pasted JSON).
      process.stdin.isTTY ? lines : undefined,
    );
    // The session's story, followed once from its start: each event shown once, no earlier turn shown again.
    const renderer = new StreamRenderer(
      { text: streamedText(output), line: output.info, progress: output.info },
      { text: stream, marks: false, approvals: prompter },
    );
    follower = new RunFollower(session.client, started.workflowId, renderer, output.info, { showsText: stream });
    let failedMessages = 0;
    let turnsEntered = 0;
    for (;;) {
      const line = await lines.next(leave.signal);
      if (leave.signal.aborted) return left(started.workflowId, output);
      if (line === undefined || line.trim() === '/end') break;
      const message = line.trim();
      if (!message) continue;
      turn = new AbortController();
      // This message's turn is the next one to end on the stream (messages are sent one at a time here), counting the
      // turns whose answer was shown from the reply while the stream lagged, and any other sender's the stream told.
      const turnEnd = Math.max(renderer.turnEnds, turnsEntered) + 1;
      const attachments = firstAttachments;
      firstAttachments = [];
      const sent = sendMessage(handle, message, { attachments }).then(
        (reply) => ({ reply }),
        (error: unknown) => ({ error }),
      );
      const outcome = await Promise.race([sent, aborted(leave.signal)]);
      if (!outcome) return left(started.workflowId, output);
      // The reply can come back before the stream has told the turn's end; it is shown first, and only once.
      if ('reply' in outcome || enteredATurn(outcome.error)) {
        turnsEntered = turnEnd;
        await Promise.race([follower.turnEnded(turnEnd, streamLagMs), aborted(leave.signal)]);
      }
      prompter.withdrawAll();
      turn = undefined;
      if (leave.signal.aborted) return left(started.workflowId, output);
      if ('error' in outcome) {
        failedMessages++;
        output.error(messageFailure(outcome.error));
        continue;
      }
      printReply(outcome.reply, output, (answer) =>
        stream ? renderer.complete(answer, turnEnd) : output.result(printable(answer)),
      );
    }
    const ended = await endAndReport(session, handle.workflowId, output);
    return failedMessages > 0 ? Math.max(ended, 1) : ended;
  } finally {
    follower?.stop();
    process.off('SIGINT', onCtrlC);
    lines.close();
    if (session.embedded) output.info(embeddedServerClosing(programName));
    await session.close();
  }
}

function left(workflowId: string, output: Output): number {
  output.info(`left the chat; session ${workflowId} is still alive: agent send ${workflowId} "…", or agent end ${workflowId}`);
  return 130;
}

/** Resolves (with nothing) when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(undefined);
    else signal.addEventListener('abort', () => resolve(undefined), { once: true });
  });
}

/** A message refused before it entered the session has no turn; any other failure ended a turn (rolled back). */
function enteredATurn(error: unknown): boolean {
  return !(error instanceof MessageNotAnsweredError && error.refused);
}
