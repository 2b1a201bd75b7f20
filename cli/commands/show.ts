import { parseArgs } from 'node:util';
import { describeWait } from '../../workflows/run-status';
import { statusQuery } from '../../workflows/definitions';
import { connect, withWorkerFallback } from '../connect';
import { readConversation } from '../../client/read-conversation';
import { renderConversation, renderPendingApproval } from '../render-conversation';
import { UsageError } from '../help';
import { usageSuffix } from '../usage-text';
import type { Output } from '../output';

/**
 * `agent show <id>`: the run's conversation, read from its stored transcript and
 * the messages after it (a worker answers the query, even for closed runs), so
 * that showing a run writes nothing (client/read-conversation.ts). The model's thinking is left out
 * unless `--thinking` asks for it.
 */
export async function showCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, thinking: { type: 'boolean', default: false } },
  });
  if (positionals.length !== 1) throw new UsageError('show takes one workflow id');
  const session = await connect({ ensureWorker: false, log: output.info });
  try {
    const handle = session.client.workflow.getHandle(positionals[0]);
    const description = await handle.describe();
    const [messages, status] = await withWorkerFallback(session, () =>
      Promise.all([readConversation(handle), handle.query(statusQuery)]),
    );
    output.info(
      `${positionals[0]}: ${description.status.name} · iteration ${status.iteration} · ` +
        `${status.usage.inputTokens} input / ${status.usage.outputTokens} output tokens${usageSuffix(status.usage)}`,
    );
    // --json gives the conversation as stored, thinking included; text hides thinking unless asked, dimmed on a terminal.
    const thinking = !values.thinking ? 'hidden' : process.stdout.isTTY && !process.env.NO_COLOR ? 'dimmed' : 'shown';
    const pendingApprovals = status.pendingApprovals ?? [];
    // What the run's calls wait on (the time tools: docs/time.md): the event or the timer, and until when.
    const waits = status.waits ?? [];
    output.result(
      values.json
        ? JSON.stringify({
            workflowId: positionals[0],
            status: description.status.name,
            // Over every run of the session, as the status query sums it (cache counts and cost included).
            usage: status.usage,
            messages,
            pendingApprovals,
            ...(waits.length > 0 && { waits }),
          })
        : [
            renderConversation(messages, { thinking }),
            ...pendingApprovals.map(renderPendingApproval),
            ...waits.map(describeWait),
          ].join('\n\n'),
    );
    return 0;
  } finally {
    await session.close();
  }
}
