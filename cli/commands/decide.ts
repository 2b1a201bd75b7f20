import { parseArgs } from 'node:util';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { approveUpdate, denyUpdate, interruptUpdate } from '../../workflows/definitions';
import { conversationCall, editInEditor } from '../edit-arguments';
import { connect, ensureWorkerServes } from '../connect';
import { UsageError } from '../help';
import type { Output } from '../output';

/**
 * `agent approve <id> [--call CALL_ID] [--args JSON | --edit]`: approves the tool call named (or every one waiting)
 * so it runs; with `--args` or `--edit` (the call's arguments in $VISUAL or $EDITOR) the one call named runs with the
 * person's arguments instead (docs/policy.md, "Edits").
 */
export function approveCommand(argv: string[], output: Output): Promise<number> {
  return decide(argv, output, 'approve');
}

/** `agent deny <id> [--call CALL_ID] [--reason TEXT]`: the call is not run; the model is told it was denied, and why. */
export function denyCommand(argv: string[], output: Output): Promise<number> {
  return decide(argv, output, 'deny');
}

async function decide(argv: string[], output: Output, verb: 'approve' | 'deny'): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      call: { type: 'string' },
      ...(verb === 'deny' && { reason: { type: 'string' } }),
      ...(verb === 'approve' && { args: { type: 'string' }, edit: { type: 'boolean', default: false } }),
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length !== 1) throw new UsageError(`${verb} takes one workflow id (and --call CALL_ID for one call)`);
  const session = await connect({ ensureWorker: true, log: output.info });
  try {
    await ensureWorkerServes(session, positionals[0]);
    const handle = session.client.workflow.getHandle(positionals[0]);
    const call = values.call as string | undefined;
    const reason = values.reason as string | undefined;
    const edited = await editedArguments(handle, call, values.args as string | undefined, values.edit === true);
    const decided = await (
      verb === 'approve'
        ? handle.executeUpdate(approveUpdate, {
            args: [{ ...(call && { call }), ...(edited !== undefined && { arguments: edited }) }],
          })
        : handle.executeUpdate(denyUpdate, { args: [{ ...(call && { call }), ...(reason && { reason }) }] })
    ).catch((error: unknown) => {
      output.error(`${verb} refused: ${refusal(error)}`);
      return undefined;
    });
    if (!decided) return 1;
    output.info(`${verb === 'approve' ? 'approved' : 'denied'}: ${decided.join(', ')}`);
    if (values.json)
      output.result(JSON.stringify({ workflowId: positionals[0], [verb === 'approve' ? 'approved' : 'denied']: decided }));
    return 0;
  } finally {
    await session.close();
  }
}

/** `agent interrupt <id>`: ends the current turn at once; the session goes on and waits for the next message. */
export async function interruptCommand(argv: string[], output: Output): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError('interrupt takes one workflow id');
  const session = await connect({ ensureWorker: true, log: output.info });
  try {
    await ensureWorkerServes(session, positionals[0]);
    const done = await session.client.workflow
      .getHandle(positionals[0])
      .executeUpdate(interruptUpdate)
      .then(
        () => true,
        (error: unknown) => {
          output.error(`interrupt refused: ${refusal(error)}`);
          return false;
        },
      );
    if (done) output.info(`interrupted the current turn of ${positionals[0]}`);
    return done ? 0 : 1;
  } finally {
    await session.close();
  }
}

function refusal(error: unknown): string {
  if (error instanceof WorkflowUpdateFailedError) return error.cause?.message ?? error.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * The person's arguments for the call: `--args` as given, or what they leave in their editor, opened on the call's
 * arguments as the conversation holds them. Checked by the run itself (the approve update's validator), which names
 * what is wrong; undefined when there is no edit.
 */
async function editedArguments(
  handle: WorkflowHandle,
  call: string | undefined,
  given: string | undefined,
  edit: boolean,
): Promise<string | undefined> {
  if (given === undefined && !edit) return undefined;
  if (given !== undefined && edit) throw new UsageError('approve takes --args JSON or --edit, not both');
  if (call === undefined) throw new UsageError('edited arguments are for one call: name it with --call CALL_ID');
  if (given !== undefined) return given;
  const asked = await conversationCall(handle, call);
  if (!asked)
    throw new UsageError(`no call "${call}" in the conversation of ${handle.workflowId} (a subagent's call: use --args)`);
  return editInEditor(asked);
}
