import { Context } from '@temporalio/activity';
import type { ModelCallInput, ModelCallResult } from '../../activities';
import { withTranscript } from '../../activities/model/with-transcript';
import type { TranscriptStore } from '../../storage/transcript/transcript-store';
import type { ModelResponse, ToolCall } from '../../core/messages';

/** What the model says at a given turn (1-based) of a session. */
export type LoadScript = (turn: number) => ModelResponse;

/**
 * The benchmarks' load generator: a zero-latency model for every benchmark
 * session at once, installed as the worker's callModel activity. Only the
 * provider call is scripted: the activity keeps transcripts in a file store
 * as the real one does, so history
 * and timings are what a real run's would be. It counts turns per workflow id
 * instead of reading the request, so the count carries on across
 * continue-as-new (same workflow id) whatever the activity input holds.
 */
export class LoadModel {
  private readonly sessions = new Map<string, { script: LoadScript; turn: number }>();

  constructor(private readonly transcripts?: TranscriptStore) {}

  add(sessionId: string, script: LoadScript): void {
    this.sessions.set(sessionId, { script, turn: 0 });
  }

  /** The next answer of a session; `retry` repeats the last one (an activity retry is the same turn). */
  respond(sessionId: string, retry = false): ModelResponse {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no benchmark script for session ${sessionId}`);
    if (!retry || session.turn === 0) session.turn++;
    return session.script(session.turn);
  }

  callModel = async (input: ModelCallInput): Promise<ModelCallResult> => {
    const info = Context.current().info;
    if (!info.workflowExecution || !this.transcripts)
      throw new Error('the benchmark model runs as the activity of agent workflows only');
    const sessionId = info.workflowExecution.workflowId;
    return withTranscript(this.transcripts, input, async () =>
      // A context summary is not a turn of the script (no benchmark sets maxContextTokens, but a default might).
      input.summarizeUpTo !== undefined ? answer('summary of the earlier turns') : this.respond(sessionId, info.attempt > 1),
    );
  };
}

const usage = { inputTokens: 0, outputTokens: 0 };

export function answer(content: string): ModelResponse {
  return { message: { role: 'assistant', content, toolCalls: [] }, finishReason: 'stop', usage };
}

export function callTools(turn: number, calls: Array<{ name: string; arguments: unknown }>): ModelResponse {
  const toolCalls: ToolCall[] = calls.map((call, index) => ({
    id: `call_${turn}_${index}`,
    name: call.name,
    arguments: JSON.stringify(call.arguments),
  }));
  return { message: { role: 'assistant', content: '', toolCalls }, finishReason: 'tool_calls', usage };
}

/** Calls `tool` once per turn for `toolTurns` turns, then answers. */
export function toolLoop(toolTurns: number, tool: string, toolArguments: (turn: number) => unknown = () => ({})): LoadScript {
  return (turn) =>
    turn <= toolTurns
      ? callTools(turn, [{ name: tool, arguments: toolArguments(turn) }])
      : answer(`done after ${toolTurns} tool turns`);
}
