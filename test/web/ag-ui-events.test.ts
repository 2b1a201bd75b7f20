import { EventType, type BaseEvent } from '@ag-ui/core';
import type { AgentEvent } from '../../core/stream-events';
import { AgUiTranslator, agUiCustomNames, runInterrupted, runStarted, toolApprovalReason } from '../../web/ag-ui-events';
import { validAgUiEvents } from './ag-ui-sequence';

// Our one event vocabulary told as AG-UI events, fed as plain objects: every event must pass @ag-ui/core's own schema,
// and the sequence must keep AG-UI's rules (a message's content between its start and end, the run closed once).

const ids = { threadId: 'session-1', runId: 'run-1' };
const usage = { inputTokens: 100, outputTokens: 20, costUsd: 0.0001, reasoningTokens: 5, cacheReadTokens: 40 };
const approval = {
  id: 'call_w',
  tool: 'write_file',
  summary: 'write_file "notes.txt" (2 bytes, 1 line)',
  description: 'write_file "notes.txt" (2 bytes, 1 line)\nhi',
  agents: ['default'],
  askedAt: '2026-11-25T23:00:00.000Z',
};

function translateAll(events: AgentEvent[]): { out: BaseEvent[]; translator: AgUiTranslator } {
  const translator = new AgUiTranslator(ids);
  const out: BaseEvent[] = [runStarted(ids)];
  for (const event of events) out.push(...translator.translate(event));
  return { out, translator };
}

const toolTurn: AgentEvent[] = [
  { type: 'turn_start', turn: 1, agent: 'default' },
  { type: 'text', call: 'm1', text: 'Let me ' },
  { type: 'reset', call: 'm1', attempt: 2 },
  { type: 'text', call: 'm1', text: 'I will write it.' },
  {
    type: 'reply',
    call: 'm1',
    text: 'I will write it.',
    toolCalls: ['write_file'],
    model: 'openai:gpt-4o-mini',
    usage,
    thought: true,
  },
  { type: 'approval_requested', ...approval },
  { type: 'approval_decided', id: 'call_w', approved: true },
  { type: 'tool_start', id: 'call_w', summary: 'write_file notes.txt' },
  { type: 'tool_result', id: 'call_w', summary: 'write_file notes.txt', isError: false, preview: 'wrote 2 bytes' },
  { type: 'reply', call: 'm2', text: 'Done.', toolCalls: [], model: 'openai:gpt-4o-mini', usage },
  {
    type: 'turn_end',
    turn: 1,
    status: 'completed',
    answer: 'Done.',
    usage: { inputTokens: 200, outputTokens: 40, costUsd: 0.0002 },
  },
];

describe('AG-UI events from the run stream', () => {
  it('tells a turn with a retried call, thinking, an approved tool call and a final answer in events AG-UI accepts', () => {
    const { out } = translateAll(toolTurn);
    validAgUiEvents(out);
    expect(out.map((event) => event.type)).toEqual([
      EventType.RUN_STARTED,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.CUSTOM,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.REASONING_START,
      EventType.REASONING_END,
      EventType.TEXT_MESSAGE_END,
      EventType.CUSTOM,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_END,
      EventType.TOOL_CALL_RESULT,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.RUN_FINISHED,
    ]);
  });

  it('closes a retried attempt and names its message for dropping; the new attempt is a new message', () => {
    const { out } = translateAll(toolTurn);
    const reset = out.find((event) => event.type === EventType.CUSTOM) as BaseEvent & {
      name: string;
      value: { messageId: string };
    };
    expect(reset.name).toBe(agUiCustomNames.textReset);
    const starts = out.filter((event) => event.type === EventType.TEXT_MESSAGE_START) as (BaseEvent & { messageId: string })[];
    expect(starts[0].messageId).toBe(reset.value.messageId);
    expect(starts[1].messageId).not.toBe(starts[0].messageId);
    const contents = out.filter((event) => event.type === EventType.TEXT_MESSAGE_CONTENT) as (BaseEvent & { delta: string })[];
    expect(
      contents
        .filter((event) => (event as unknown as { messageId: string }).messageId === starts[1].messageId)
        .map((event) => event.delta),
    ).toEqual(['I will write it.']);
  });

  it('names the tool, parents the call on the message that asked for it, and gives its result', () => {
    const { out } = translateAll(toolTurn);
    const start = out.find((event) => event.type === EventType.TOOL_CALL_START) as BaseEvent & Record<string, string>;
    const textStarts = out.filter((event) => event.type === EventType.TEXT_MESSAGE_START) as (BaseEvent & {
      messageId: string;
    })[];
    expect(start).toMatchObject({ toolCallId: 'call_w', toolCallName: 'write_file', parentMessageId: textStarts[1].messageId });
    expect(out.find((event) => event.type === EventType.TOOL_CALL_RESULT)).toMatchObject({
      toolCallId: 'call_w',
      content: 'wrote 2 bytes',
      role: 'tool',
    });
  });

  it('finishes the run with the answer, usage per model in AG-UI accounting, and the cost', () => {
    const { out, translator } = translateAll(toolTurn);
    expect(translator.ended).toBe(true);
    expect(out.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      threadId: 'session-1',
      runId: 'run-1',
      outcome: { type: 'success' },
      result: { answer: 'Done.', status: 'completed' },
      usage: [
        {
          model: 'openai:gpt-4o-mini',
          inputTokens: 200,
          outputTokens: 40,
          totalTokens: 240,
          reasoningTokens: 10,
          cachedInputTokens: 80,
        },
      ],
      metadata: { 'durable-agent': { costUsd: 0.0002 } },
    });
  });

  it('gives a whole reply as one message when the run streamed no text', () => {
    const { out } = translateAll([
      { type: 'turn_start', turn: 2 },
      { type: 'reply', call: 'm9', text: 'All at once.', toolCalls: [] },
      { type: 'turn_end', turn: 2, status: 'completed', answer: 'All at once.' },
    ]);
    validAgUiEvents(out);
    expect(out.find((event) => event.type === EventType.TEXT_MESSAGE_CONTENT)).toMatchObject({ delta: 'All at once.' });
  });

  it('ends a stopped turn as cancelled and a failed one as RUN_ERROR with the reason', () => {
    const stopped = translateAll([
      { type: 'turn_start', turn: 1 },
      { type: 'text', call: 'm1', text: 'A long' },
      { type: 'turn_end', turn: 1, status: 'interrupted', answer: '' },
    ]).out;
    validAgUiEvents(stopped);
    expect(stopped.at(-2)).toMatchObject({ type: EventType.TEXT_MESSAGE_END });
    expect(stopped.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'cancelled' } });

    const failed = translateAll([
      { type: 'turn_start', turn: 1 },
      { type: 'turn_end', turn: 1, status: 'failed', answer: '', error: 'the provider refused the key' },
    ]).out;
    validAgUiEvents(failed);
    expect(failed.at(-1)).toMatchObject({
      type: EventType.RUN_ERROR,
      message: 'the provider refused the key',
      code: 'turn_failed',
    });
  });

  it('ends a run waiting for approval with one interrupt per pending call, carrying what will really run', () => {
    const { out, translator } = translateAll(toolTurn.slice(0, 6));
    expect(translator.pendingApprovals).toEqual([approval]);
    const interrupted = runInterrupted(ids, translator.pendingApprovals, translator.usage);
    validAgUiEvents([...out, interrupted]);
    expect(interrupted).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: {
        type: 'interrupt',
        interrupts: [
          {
            id: 'call_w',
            reason: toolApprovalReason,
            toolCallId: 'call_w',
            message: approval.description,
            responseSchema: { required: ['approved'] },
          },
        ],
      },
    });
    // A decision takes the call off the list: the next run does not ask again.
    translator.translate({ type: 'approval_decided', id: 'call_w', approved: false, reason: 'no' });
    expect(translator.pendingApprovals).toEqual([]);
  });

  it('keeps a hostile model text as content: no fake events, no markup in ids', () => {
    const hostile = 'x"}\n\ndata: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n<script>alert(1)</script>';
    const { out } = translateAll([
      { type: 'turn_start', turn: 1 },
      { type: 'text', call: 'm1', text: hostile },
      { type: 'reply', call: 'm1', text: hostile, toolCalls: [] },
      { type: 'turn_end', turn: 1, status: 'completed', answer: hostile },
    ]);
    validAgUiEvents(out);
    expect(out.filter((event) => event.type === EventType.RUN_FINISHED)).toHaveLength(1);
    expect(out.find((event) => event.type === EventType.TEXT_MESSAGE_CONTENT)).toMatchObject({ delta: hostile });
  });
});

describe('AG-UI tool arguments and reasoning (stream vocabulary 0.3)', () => {
  const thinkingTurn: AgentEvent[] = [
    { type: 'turn_start', turn: 1 },
    { type: 'thinking', call: 'm1', text: 'The user wants ' },
    { type: 'thinking', call: 'm1', text: 'the folder listed.' },
    { type: 'text', call: 'm1', text: 'Looking.' },
    {
      type: 'reply',
      call: 'm1',
      text: 'Looking.',
      toolCalls: ['list_directory'],
      thought: true,
      thinking: 'The user wants the folder listed.',
    },
    { type: 'tool_start', id: 'call_ls', summary: 'list_directory src', name: 'list_directory', input: { path: 'src' } },
    { type: 'tool_result', id: 'call_ls', summary: 'list_directory src', isError: false, preview: 'a.ts' },
    { type: 'turn_end', turn: 1, status: 'completed', answer: 'Looking.' },
  ];

  it('sends the tool call as START, ARGS with the arguments as JSON, END; the thinking as a reasoning message', () => {
    const { out } = translateAll(thinkingTurn);
    validAgUiEvents(out);
    const types = out.map((event) => event.type);
    expect(types.slice(1, 6)).toEqual([
      EventType.REASONING_START,
      EventType.REASONING_MESSAGE_START,
      EventType.REASONING_MESSAGE_CONTENT,
      EventType.REASONING_MESSAGE_CONTENT,
      EventType.REASONING_MESSAGE_END,
    ]);
    const reasoning = out.filter((event) => event.type === EventType.REASONING_MESSAGE_CONTENT) as unknown as { delta: string }[];
    expect(reasoning.map((event) => event.delta).join('')).toBe('The user wants the folder listed.');
    const tool = out.filter((event) => 'toolCallId' in event && event.type !== EventType.TOOL_CALL_RESULT);
    expect(tool.map((event) => event.type)).toEqual([
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_ARGS,
      EventType.TOOL_CALL_END,
    ]);
    expect(tool[0]).toMatchObject({ toolCallName: 'list_directory' });
    expect(JSON.parse((tool[1] as unknown as { delta: string }).delta)).toEqual({ path: 'src' });
  });

  it('tells thinking that was not streamed whole at the reply; an older tool_start gets no ARGS', () => {
    const { out } = translateAll([
      { type: 'turn_start', turn: 1 },
      { type: 'reply', call: 'm1', text: 'Hi.', toolCalls: ['read_file'], thought: true, thinking: 'Say hi.' },
      { type: 'tool_start', id: 'c1', summary: 'read_file a.txt' },
      { type: 'tool_result', id: 'c1', summary: 'read_file a.txt', isError: false, preview: 'alpha' },
      { type: 'turn_end', turn: 1, status: 'completed', answer: 'Hi.' },
    ]);
    validAgUiEvents(out);
    expect(out.find((event) => event.type === EventType.REASONING_MESSAGE_CONTENT)).toMatchObject({ delta: 'Say hi.' });
    expect(out.find((event) => event.type === EventType.TOOL_CALL_START)).toMatchObject({ toolCallName: 'read_file' });
    expect(out.some((event) => event.type === EventType.TOOL_CALL_ARGS)).toBe(false);
  });

  it('a retried call: its streamed reasoning is closed and named for dropping, the new attempt streams a new one', () => {
    const { out } = translateAll([
      { type: 'turn_start', turn: 1 },
      { type: 'thinking', call: 'm1', text: 'First try' },
      { type: 'reset', call: 'm1', attempt: 2 },
      { type: 'thinking', call: 'm1', text: 'Second try' },
      { type: 'reply', call: 'm1', text: 'Ok.', toolCalls: [], thought: true, thinking: 'Second try' },
      { type: 'turn_end', turn: 1, status: 'completed', answer: 'Ok.' },
    ]);
    validAgUiEvents(out);
    const starts = out.filter((event) => event.type === EventType.REASONING_MESSAGE_START) as unknown as { messageId: string }[];
    expect(starts).toHaveLength(2);
    expect(out.find((event) => event.type === EventType.CUSTOM)).toMatchObject({
      name: agUiCustomNames.textReset,
      value: { messageId: starts[0].messageId },
    });
  });
});

it('interleaved thinking (thinking, text, thinking in one reply) opens a new reasoning span with ids of its own', () => {
  const { out } = translateAll([
    { type: 'turn_start', turn: 1 },
    { type: 'thinking', call: 'm1', text: 'First.' },
    { type: 'text', call: 'm1', text: 'Saying something.' },
    { type: 'thinking', call: 'm1', text: '\n\nSecond.' },
    { type: 'reply', call: 'm1', text: 'Saying something.', toolCalls: [], thought: true, thinking: 'First.\n\nSecond.' },
    { type: 'turn_end', turn: 1, status: 'completed', answer: 'Saying something.' },
  ]);
  validAgUiEvents(out);
  expect(out.filter((event) => event.type === EventType.REASONING_START)).toHaveLength(2);
  expect(out.some((event) => event.type === EventType.CUSTOM)).toBe(false);
});

describe('a steering message as AG-UI tells it (issue 33)', () => {
  const steeredTurn: AgentEvent[] = [
    { type: 'turn_start', turn: 1, agent: 'default' },
    { type: 'reply', call: 'm1', text: '', toolCalls: ['read_file'] },
    { type: 'tool_start', id: 'c1', summary: 'read_file "a.txt"', name: 'read_file', input: { path: 'a.txt' } },
    { type: 'tool_result', id: 'c1', summary: 'read_file "a.txt"', isError: false, preview: 'alpha' },
    { type: 'steered', turn: 1, iteration: 1, text: 'not that one' },
    { type: 'reply', call: 'm2', text: 'beta, then.', toolCalls: [] },
    { type: 'turn_end', turn: 1, status: 'completed', answer: 'beta, then.', usage },
  ];

  it('a run following the turn tells the steering message as a user text message where it joined', () => {
    const { out } = translateAll(steeredTurn);
    validAgUiEvents(out);
    const start = out.findIndex(
      (event) => event.type === EventType.TEXT_MESSAGE_START && (event as { role?: string }).role === 'user',
    );
    expect(start).toBeGreaterThan(out.findIndex((event) => event.type === EventType.TOOL_CALL_RESULT));
    expect(out[start + 1]).toMatchObject({ type: EventType.TEXT_MESSAGE_CONTENT, delta: 'not that one' });
    expect(out[start + 2]).toMatchObject({ type: EventType.TEXT_MESSAGE_END });
  });

  it('the steering run (forwardedProps.steer) starts after the steering message, which its client sent', () => {
    const translator = new AgUiTranslator(ids, { kind: 'steered', turn: 1 });
    const out: BaseEvent[] = [runStarted(ids), ...steeredTurn.flatMap((event) => translator.translate(event))];
    validAgUiEvents(out);
    expect(out.some((event) => (event as { role?: string }).role === 'user')).toBe(false);
    expect(out.some((event) => event.type === EventType.TOOL_CALL_START)).toBe(false);
    expect(out.filter((event) => event.type === EventType.TEXT_MESSAGE_CONTENT)).toEqual([
      expect.objectContaining({ delta: 'beta, then.' }),
    ]);
    expect(out.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED });
  });
});
