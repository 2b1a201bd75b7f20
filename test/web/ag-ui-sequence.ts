import { EventType, type BaseEvent } from '@ag-ui/core';
import { EventSchema } from '@ag-ui/core/schemas';

/** The events, once each has passed @ag-ui/core's own schema and together they keep AG-UI's ordering rules. */
export function validAgUiEvents(events: BaseEvent[]): BaseEvent[] {
  for (const event of events) {
    const parsed = EventSchema.safeParse(event);
    if (!parsed.success) throw new Error(`${event.type} fails @ag-ui/core's schema: ${parsed.error.message}`);
  }
  assertAgUiSequence(events);
  return events;
}

/** Reads a run's response as an AG-UI client does (an SSE stream of `data:` frames), and checks every event and their order. */
export async function readAgUiRun(response: Response): Promise<BaseEvent[]> {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const events = (await response.text())
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => JSON.parse(frame.slice('data: '.length)) as BaseEvent);
  return validAgUiEvents(events);
}

/**
 * AG-UI's ordering rules, which its schemas (one event at a time) cannot check: the run starts first and closes once,
 * last; a message's or tool call's events come between its start and its end; reasoning messages lie within a reasoning
 * span and spans close; ids are not reused.
 */
export function assertAgUiSequence(events: BaseEvent[]): void {
  const fail = (index: number, why: string) => {
    throw new Error(`AG-UI event ${index} (${events[index].type}): ${why}`);
  };
  if (events[0]?.type !== EventType.RUN_STARTED) fail(0, 'a run starts with RUN_STARTED');
  const open = { message: new Set<string>(), tool: new Set<string>(), reasoning: new Set<string>(), thinking: new Set<string>() };
  const used = new Set<string>();
  events.forEach((event, index) => {
    const fields = event as BaseEvent & { messageId?: string; toolCallId?: string };
    const terminal = event.type === EventType.RUN_FINISHED || event.type === EventType.RUN_ERROR;
    if (index > 0 && event.type === EventType.RUN_STARTED) fail(index, 'a second RUN_STARTED');
    if (terminal && index !== events.length - 1) fail(index, 'events after the run ended');
    const openOnce = (kind: keyof typeof open, id: string) => {
      if (used.has(`${kind}:${id}`)) fail(index, `${kind} ${id} opened twice`);
      used.add(`${kind}:${id}`);
      open[kind].add(id);
    };
    const within = (kind: keyof typeof open, id: string) => {
      if (!open[kind].has(id)) fail(index, `${kind} ${id} is not open`);
    };
    switch (event.type) {
      case EventType.TEXT_MESSAGE_START:
        return openOnce('message', fields.messageId!);
      case EventType.TEXT_MESSAGE_CONTENT:
        if ((event as unknown as { delta: string }).delta === '') fail(index, 'an empty delta');
        return within('message', fields.messageId!);
      case EventType.TEXT_MESSAGE_END:
        within('message', fields.messageId!);
        return void open.message.delete(fields.messageId!);
      case EventType.TOOL_CALL_START:
        return openOnce('tool', fields.toolCallId!);
      case EventType.TOOL_CALL_ARGS:
        return within('tool', fields.toolCallId!);
      case EventType.TOOL_CALL_END:
        within('tool', fields.toolCallId!);
        return void open.tool.delete(fields.toolCallId!);
      case EventType.TOOL_CALL_RESULT:
        if (!used.has(`tool:${fields.toolCallId}`)) fail(index, `result of ${fields.toolCallId}, which never started`);
        return;
      case EventType.REASONING_START:
        return openOnce('reasoning', fields.messageId!);
      case EventType.REASONING_END:
        within('reasoning', fields.messageId!);
        if (open.thinking.size > 0) fail(index, `reasoning span closed with message ${[...open.thinking].join(', ')} open`);
        return void open.reasoning.delete(fields.messageId!);
      case EventType.REASONING_MESSAGE_START:
        if (open.reasoning.size === 0) fail(index, 'a reasoning message outside a reasoning span');
        return openOnce('thinking', fields.messageId!);
      case EventType.REASONING_MESSAGE_CONTENT:
        return within('thinking', fields.messageId!);
      case EventType.REASONING_MESSAGE_END:
        within('thinking', fields.messageId!);
        return void open.thinking.delete(fields.messageId!);
    }
  });
  const last = events.length - 1;
  const ended = events[last]?.type === EventType.RUN_FINISHED || events[last]?.type === EventType.RUN_ERROR;
  const stillOpen = [...open.message, ...open.tool, ...open.reasoning, ...open.thinking];
  if (ended && stillOpen.length > 0) {
    fail(last, `the run ended with ${stillOpen.join(', ')} still open`);
  }
}
