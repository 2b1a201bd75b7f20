import { describeWait } from '../workflows/run-status';
import { questionRule } from '../core/tool-question';
import { isPolicyRule } from '../core/approval-policy';
import type { StreamEvent } from '../core/stream-events';
import type { TrippedGuardrail } from '../core/guardrails';
import { printable } from './terminal-text';
import { describeUsage } from './usage-text';

type Event<Type extends StreamEvent['type']> = Extract<StreamEvent, { type: Type }>;

/**
 * The progress line of a model reply: `iteration 2 · openai:gpt-4o-mini asked for read_file (200 in / 40 out tokens,
 * $0.000054)`. The iteration counts the turn's model calls. A reply carried over from an older run lacks the
 * iteration, model and usage: what it has is said (`iteration` from the renderer's own count when it saw the turn start).
 */
export function replyLine(event: Event<'reply'>, options: { iteration?: number; attempt?: number } = {}): string {
  const iteration = event.iteration ?? options.iteration;
  const asked = event.toolCalls.length ? `asked for ${event.toolCalls.join(', ')}` : 'answered';
  // That the model thought shows as tokens, never as its text; a provider that does not count them gets a word.
  const thought = !event.usage?.reasoningTokens && event.thought ? 'thought; ' : '';
  const usage = event.usage ? ` (${thought}${describeUsage(event.usage)})` : thought ? ' (thought)' : '';
  const retried = options.attempt ? ` · on attempt ${options.attempt}` : '';
  return printable(
    `${iteration !== undefined ? `iteration ${iteration} · ` : ''}${event.model ?? 'the model'} ${asked}${usage}${retried}`,
  );
}

/**
 * A model call that failed and is tried again, as it happens: `model call failed (attempt 2, api.openai.com:
 * Connection error.); retrying in 4 s`. The error is the provider's, escaped like everything the stream carries.
 */
export function retryLine(event: Event<'model_retry'>): string {
  const wait = event.retryInMs === undefined ? '' : ` in ${waitText(event.retryInMs)}`;
  return printable(`model call failed (attempt ${event.attempt}, ${event.host}: ${event.error}); retrying${wait}`);
}

function waitText(milliseconds: number): string {
  return milliseconds < 1_000 ? `${Math.round(milliseconds)} ms` : `${Math.round(milliseconds / 1_000)} s`;
}

export function toolStartLine(event: Event<'tool_start'>): string {
  return printable(`  → ${event.summary}`);
}

/** `  ✓ read_file alpha.txt`, or `  ✗ read_file nope.txt: <the start of the error>`. */
export function toolResultLine(event: Event<'tool_result'>): string {
  return printable(`  ${event.isError ? '✗' : '✓'} ${event.summary}${event.isError ? `: ${event.preview}` : ''}`);
}

/** `  ⏳ waiting for event \`payment.received\` until … (UTC) · call \`pay\`: the invoice` (the model's reason, printable). */
export function waitingLine(event: Event<'waiting'>): string {
  return printable(`  ⏳ ${describeWait(event)}`);
}

export function handoffLine(event: Event<'handoff'>): string {
  return printable(`handed over from ${event.from} to ${event.to}`);
}

/** `  ↪ steering taken after model call 2: not that file, the other one` (the message as the stream cut it). */
export function steeredLine(event: Event<'steered'>): string {
  const where = event.iteration === 0 ? 'before the first model call' : `after model call ${event.iteration}`;
  return printable(`  ↪ steering taken ${where}: ${event.text}`);
}

export function turnStartLine(event: Event<'turn_start'>): string {
  return `── turn ${event.turn}`;
}

/** A turn that did not simply complete: failed (and rolled back), or ended with another status; undefined when it completed. */
export function turnEndLine(event: Event<'turn_end'>): string | undefined {
  if (event.status === 'failed')
    return printable(`── turn ${event.turn} failed and was rolled back: ${event.error ?? 'no reason given'}`);
  if (event.status !== 'completed') return `── turn ${event.turn} ended: ${statusText(event.status, event.guardrail)}`;
  return undefined;
}

/** A status as a person reads it: `guardrail_tripped` says which guardrail and why (its reason escaped: a model may have written it). */
export function statusText(status: string, guardrail?: TrippedGuardrail): string {
  return guardrail ? printable(`${status} (guardrail "${guardrail.name}": ${guardrail.reason})`) : status;
}

/** For a watcher, who cannot decide: the request whole (its description is escaped where it was built). */
export function approvalRequestedLine(event: Event<'approval_requested'>): string {
  const by = event.agents.length > 1 ? `, asked by ${event.agents.join(' → ')}` : '';
  const description = (event.description ?? event.summary)
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
  const rule = isPolicyRule(event.rule) ? `, rule ${event.rule}` : '';
  const edited = event.edited ? ', with edited arguments' : '';
  return printable(`  ? waiting for approval (call ${event.id}${rule}${by}${edited}):\n${description}`);
}

export function approvalDecidedLine(event: Event<'approval_decided'>): string {
  const approved = event.rule === questionRule ? '✓ answered' : event.edited ? '✓ approved with edited arguments' : '✓ approved';
  return printable(`  ${event.approved ? approved : `✗ not approved (${event.reason ?? 'denied'})`}: call ${event.id}`);
}

/** An eval's pair starts: `▸ case-3 · cheaper (eval-…/case-3/cheaper)`; the recorded baseline has no run to name. */
export function evalPairStartLine(event: Event<'eval_pair_start'>): string {
  return printable(`▸ ${event.case} · ${event.candidate}${event.workflowId ? ` (${event.workflowId})` : ''}`);
}

/** An eval's pair ended: `✓ case-3 · cheaper: score 1.00 ($0.000054)`, or `✗ … (failed: why)`. */
export function evalPairEndLine(event: Event<'eval_pair_end'>): string {
  const cost = event.costUsd ? ` ($${event.costUsd.toFixed(6)})` : '';
  const status = event.status === 'completed' ? '' : ` [${event.status}${event.error ? `: ${event.error}` : ''}]`;
  return printable(
    `${event.pass ? '✓' : '✗'} ${event.case} · ${event.candidate}: score ${event.score.toFixed(2)}${cost}${status}`,
  );
}

/** The eval ended: `eval ended: 12 pairs` or `eval stopped by its budget: 12 pairs, 4 not run`. */
export function evalEndLine(event: Event<'eval_end'>): string {
  return event.stopped === 'budget'
    ? `eval stopped by its budget: ${event.pairs} pairs, ${event.notRun} not run`
    : `eval ended: ${event.pairs} pairs`;
}
