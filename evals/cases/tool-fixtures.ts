import { canonicalJson } from '../../core/eval-tools';
import { maxToolOutputChars } from '../../core/limits';
import type { Message, ToolCall, ToolResultMessage } from '../../core/messages';
import { parseToolArguments } from '../../core/tool-arguments';
import { handoffToolPrefix } from '../../core/tool-names';
import { truncateOutput } from '../../tools/truncate';
import type { ObservedToolCall, ToolFixture } from '../../core/eval-types';
import { safeContext } from './safe-context';

/** All the fixtures of one case hold at most this many characters of results: they travel in every run's input. */
export const maxFixtureChars = 1024 * 1024;

// Results the workflow wrote itself, for calls that never ran (core/tool-pairing.ts, workflows/run-tool-calls.ts):
// a candidate's identical call gets the same answer from the workflow, never from a recording.
const answeredByTheWorkflow = [/^Error: not run: /, /^Error: unknown tool "/, /^Error: arguments for /];

/**
 * Each tool call of these messages with its result, in order, paired as ./safe-context.ts pairs them (a recorded id
 * may repeat or answer nothing; a call the recording left unanswered has a "not run" result there).
 */
export function callsWithResults(recorded: Message[]): Array<{ call: ToolCall; result?: ToolResultMessage }> {
  const messages = safeContext(recorded);
  const results = new Map<string, ToolResultMessage>();
  for (const message of messages) if (message.role === 'tool') results.set(message.toolCallId, message);
  return messages.flatMap((message) =>
    message.role === 'assistant' ? message.toolCalls.map((call) => ({ call, result: results.get(call.id) })) : [],
  );
}

/** The calls of an answer as a report shows them: arguments parsed (the text itself when it is not JSON), with results. */
export function observedCalls(messages: Message[]): ObservedToolCall[] {
  return callsWithResults(messages).map(({ call, result }) => {
    const parsed = parseToolArguments(call.arguments);
    return {
      name: call.name,
      arguments: parsed.ok ? parsed.value : call.arguments,
      ...(result && { result: result.content, isError: result.isError }),
    };
  });
}

/**
 * The recorded results a candidate's identical calls get. The calls made while answering the case's message come
 * first, each (tool, canonical arguments) once with its first result: what the workspace held when the recording
 * started its answer. Then the calls made earlier in the conversation, latest first. Calls whose arguments are not
 * JSON, handoffs, and results the workflow wrote for calls that never ran are left out; each result is bounded as a
 * tool's output is, and the whole at maxFixtureChars.
 */
export function toolFixtures(answer: Message[], earlier: Message[]): ToolFixture[] {
  const fixtures: ToolFixture[] = [];
  const seen = new Set<string>();
  let chars = 0;
  const candidates = [...callsWithResults(answer), ...callsWithResults(earlier).reverse()];
  for (const { call, result } of candidates) {
    if (!result || call.name.startsWith(handoffToolPrefix)) continue;
    if (answeredByTheWorkflow.some((pattern) => pattern.test(result.content))) continue;
    const parsed = parseToolArguments(call.arguments);
    if (!parsed.ok) continue;
    const fixture = {
      tool: call.name,
      arguments: canonicalJson(parsed.value),
      content: truncateOutput(result.content, maxToolOutputChars),
      isError: result.isError,
    };
    const key = `${fixture.tool}\n${fixture.arguments}`;
    if (seen.has(key) || chars + fixture.content.length + fixture.arguments.length > maxFixtureChars) continue;
    seen.add(key);
    chars += fixture.content.length + fixture.arguments.length;
    fixtures.push(fixture);
  }
  return fixtures;
}
