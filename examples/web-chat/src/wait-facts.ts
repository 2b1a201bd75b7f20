/** What a tool call waits for and until when (a `data-wait` part: the stream's `waiting` event), read defensively. */
export interface ShownWait {
  callId: string;
  event?: string;
  reason: string;
  until: string;
}

export function waitOf(part: { type: string; data?: unknown }): ShownWait | undefined {
  if (part.type !== 'data-wait' || typeof part.data !== 'object' || part.data === null) return undefined;
  const { callId, event, reason, until } = part.data as Record<string, unknown>;
  if (typeof callId !== 'string' || typeof until !== 'string' || Number.isNaN(Date.parse(until))) return undefined;
  return {
    callId,
    ...(typeof event === 'string' && { event }),
    reason: typeof reason === 'string' ? reason : '',
    until,
  };
}

/**
 * `Waiting for event payment.received until Thu, 10 Dec 2026 09:00:00 GMT (in your time zone: 10/12/2026, 10:00:00):
 * the invoice must be paid`: the moment in UTC and in the reader's own zone, so nobody has to convert.
 */
export function formatWait(wait: ShownWait): string {
  const until = new Date(wait.until);
  const what = wait.event !== undefined ? `Waiting for event ${wait.event}` : 'Sleeping';
  const local = until.toLocaleString(undefined, { timeZoneName: 'short' });
  return `${what} until ${until.toUTCString()} (${local})${wait.reason ? `: ${wait.reason}` : ''}`;
}
