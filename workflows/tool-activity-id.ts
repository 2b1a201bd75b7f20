import { patched } from '@temporalio/workflow';

/**
 * The patch under which a tool activity's id comes from its call id. Before it, ids were the SDK's default, the
 * activity's sequence number: replay compared a round's activities by type and position only, so a change in the
 * order a round starts its calls replayed cleanly and then paired each recorded result with the wrong call (issue 30).
 * With ids from call ids, sdk-core compares the recorded id with the command's on replay
 * (activity_state_machine.rs, "Activity id of scheduled event … does not match activity id of activity command"),
 * and a reordered round is a nondeterminism error, caught by `agent replay`. Runs recorded without the patch keep
 * their positional ids, so they still replay.
 */
export const toolActivityIdPatch = 'tool-activity-id-from-call-id';

// Call ids are made unique and well-formed at the model boundary (core/call-ids.ts: letters, digits, - and _, at
// most 40): those are used as they are. Anything else (a reply recorded before that boundary, a bug) is never put
// into an id raw: a lone surrogate would reach the server as U+FFFD and no longer match on replay, and the server
// caps ids at 1,000 bytes. It is named by a digest of its UTF-16 code units instead.
const usableCallId = /^[A-Za-z0-9_-]{1,64}$/;

/** The activity id of the tool call `callId`, or undefined in a run recorded before ids came from call ids. */
export function toolActivityId(callId: string): string | undefined {
  if (!patched(toolActivityIdPatch)) return undefined;
  return `tool-${usableCallId.test(callId) ? callId : `h${digest(callId)}-${callId.length}`}`;
}

/** Two independent 32-bit FNV-1a hashes of the code units: 64 bits, deterministic, no Node built-in (workflow code). */
function digest(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    a = Math.imul(a ^ unit, 0x01000193) >>> 0;
    b = Math.imul(b ^ unit ^ (index & 0xff), 0x01000197) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

/**
 * The patch under which a tool run as a local activity answers with its call id (ToolActivityInput.echoCallId), and
 * the workflow checks it: a local activity's id stays its position, so this check is what catches a reordered round
 * of local tools on replay. Runs recorded before it recorded the output alone.
 */
export const localToolCallIdPatch = 'local-tool-echoes-call-id';

export function echoesCallId(): boolean {
  return patched(localToolCallIdPatch);
}
