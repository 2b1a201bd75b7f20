/**
 * A tool call that waits in the workflow itself (the time tools, time/): on a durable timer, or for an event from
 * outside with a timeout. The run shows it (`agent show`, the status query) and, when it continues as new in the
 * middle of the wait, carries it to the next run (core/carried-state.ts, OpenRound's `waits`), which waits on to the
 * same moment: the deadline is absolute, so nothing is added or lost across the boundary.
 */
export interface TimedWait {
  /** The tool call that waits. */
  callId: string;
  tool: string;
  /** Why, in the model's words (bounded, hidden characters made visible): the timer's summary in the Web UI. */
  reason: string;
  /** When the wait began (ISO 8601, UTC), in the run that began it. */
  startedAt: string;
  /** When it ends (ISO 8601, UTC): the end of a sleep, or the timeout of a wait for an event. */
  until: string;
  /** The event a `wait_for_event` call waits for; absent for a sleep. */
  event?: string;
}
