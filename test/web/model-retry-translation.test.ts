import { EventSchema } from '@ag-ui/core/schemas';
import type { BaseEvent } from '@ag-ui/core';
import type { AgentEvent } from '../../core/stream-events';
import { AgUiTranslator, agUiCustomNames, runStarted } from '../../web/ag-ui-events';
import { UiMessageTranslator } from '../../web/ui-message-chunks';
import { assertAgUiSequence } from './ag-ui-sequence';

// `model_retry` (a failed model call that is tried again) through both web translators: a data part for useChat, a
// custom event for AG-UI, each valid for its protocol, and the turn around it told as before.

const retry: AgentEvent = {
  type: 'model_retry',
  call: 'm1',
  model: 'openai:gpt-4o-mini',
  attempt: 1,
  host: 'api.openai.com',
  error: 'Connection error.',
  retryInMs: 1000,
};
const turn: AgentEvent[] = [
  { type: 'turn_start', turn: 1, agent: 'default' },
  retry,
  { type: 'text', call: 'm1', text: 'Hello.' },
  { type: 'reply', call: 'm1', text: 'Hello.', toolCalls: [] },
  { type: 'turn_end', turn: 1, status: 'completed', answer: 'Hello.' },
];
const { type: _type, ...retryData } = retry;

it('becomes a data-model-retry part of the useChat message, between its start and its finish', () => {
  const translator = new UiMessageTranslator();
  const chunks = turn.flatMap((event) => translator.translate(event));
  const types = chunks.map((chunk) => chunk.type);
  expect(types[0]).toBe('start');
  expect(types.at(-1)).toBe('finish');
  expect(chunks).toContainEqual({ type: 'data-model-retry', data: retryData });
  expect(types).toContain('text-delta');
});

it("becomes a durable-agent.model_retry custom event that passes AG-UI's schema and sequence rules", () => {
  const ids = { threadId: 'session-1', runId: 'run-1' };
  const translator = new AgUiTranslator(ids);
  const events: BaseEvent[] = [runStarted(ids), ...turn.flatMap((event) => translator.translate(event))];
  for (const event of events) expect(EventSchema.safeParse(event).success).toBe(true);
  assertAgUiSequence(events);
  expect(events).toContainEqual(expect.objectContaining({ name: agUiCustomNames.modelRetry, value: retryData }));
});
