import { EventSchema } from '@ag-ui/core/schemas';
import { EventType } from '@ag-ui/core';
import { parseToolArguments } from '../../core/tool-arguments';
import { omittedKey, streamInputStringChars, streamToolInput } from '../../core/stream-tool-input';
import { AgUiTranslator } from '../../web/ag-ui-events';
import { UiMessageTranslator } from '../../web/ui-message-chunks';

// A tool call's arguments on the run's stream: the model is untrusted, and every stream event is carried in history.

it('keeps ordinary arguments as they are', () => {
  const args = { path: 'notes/today.md', content: 'line one\nline two', append: true, lines: [1, 2, 3], mode: null };
  expect(streamToolInput(args)).toEqual(args);
});

it('cuts a long array with one marker item that counts what was left out', () => {
  const items = streamToolInput({ lines: Array.from({ length: 1_000 }, () => 'y'.repeat(50)) }) as { lines: string[] };
  expect(items.lines.length).toBeLessThan(100);
  expect(items.lines.at(-1)).toBe(`[${1_000 - items.lines.length + 1} more items not shown]`);
});

it('bounds hostile arguments: a huge string, thousands of keys, deep nesting, __proto__ and hidden characters', () => {
  const nested = `${'{"a":'.repeat(60)}1${'}'.repeat(60)}`;
  const manyKeys = Object.fromEntries(Array.from({ length: 5_000 }, (_, index) => [`key${index}`, 'v'.repeat(50)]));
  const text = JSON.stringify({
    huge: 'x'.repeat(1_000_000),
    ['k'.repeat(10_000)]: 1,
    deep: '__NESTED__',
    bidi: 'rm -rf \u202Eosd.txt\u0007\u001b[2J\t',
    many: manyKeys,
  })
    .replace('"__NESTED__"', nested)
    .replace('"bidi"', '"__proto__":{"polluted":true},"bidi"');
  const parsed = parseToolArguments(text);
  expect(parsed.ok).toBe(true);
  const input = streamToolInput(parsed.ok ? parsed.value : undefined) as Record<string, unknown>;
  const json = JSON.stringify(input);

  // Bounded: a few kilobytes out of more than a megabyte in.
  expect(text.length).toBeGreaterThan(1_000_000);
  expect(json.length).toBeLessThan(6_000);
  // A long string is cut, and says so.
  expect(input.huge).toBe(
    `${'x'.repeat(streamInputStringChars)}… [${1_000_000 - streamInputStringChars} more characters not shown]`,
  );
  expect(Object.keys(input).some((key) => key.startsWith('kkk') && key.length < 300)).toBe(true);
  // Nesting ends in a marker.
  expect(json).toContain('nested deeper than 6 levels');
  // __proto__ stays an ordinary key of the data; no prototype was touched.
  expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
  expect(Object.prototype.hasOwnProperty.call(input, '__proto__')).toBe(true);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  // Characters that hide or fake text are shown as escapes.
  expect(input.bidi).toBe('rm -rf \\u{202E}osd.txt\\u{0007}\\u{001B}[2J\\t');
  // What did not fit says how much was left out.
  expect((input.many as Record<string, unknown>)[omittedKey]).toMatch(/^\d+ more keys not shown$/);

  // Both adapters carry it without breaking: AG-UI's schema accepts the ARGS, whose JSON reads back as the input.
  const agUi = new AgUiTranslator({ threadId: 't', runId: 'r' }).translate({
    type: 'tool_start',
    id: 'c1',
    summary: 'write_file x',
    name: 'write_file',
    input,
  });
  for (const event of agUi) expect(EventSchema.safeParse(event).success).toBe(true);
  const args = agUi.find((event) => event.type === EventType.TOOL_CALL_ARGS) as unknown as { delta: string };
  expect(JSON.parse(args.delta)).toEqual(JSON.parse(json));
  const ui = new UiMessageTranslator();
  ui.translate({ type: 'turn_start', turn: 1 });
  const chunks = ui.translate({ type: 'tool_start', id: 'c1', summary: 'write_file x', name: 'write_file', input });
  expect(chunks.find((chunk) => chunk.type === 'tool-input-available')).toMatchObject({ input });
});
