import { agentInputFromFlags } from '../../cli/commands/agent-flags';
import { canonicalJson, describeCall } from '../../core/approval-description';
import { withUniqueCallIds } from '../../core/call-ids';
import type { AssistantMessage, Message } from '../../core/messages';
import { parseToolArguments } from '../../core/tool-arguments';
import { visible } from '../../core/visible-text';
import { describeWrite } from '../../tools/approval-texts';
import { toolCallSummary } from '../../workflows/summaries';

// The pure pieces that stand between what a (possibly injected) model sends and what runs or is shown to a person.

const reply = (ids: string[]): AssistantMessage => ({
  role: 'assistant',
  content: '',
  toolCalls: ids.map((id, index) => ({ id, name: 'write_file', arguments: `{"path":"f${index}"}` })),
});

describe('withUniqueCallIds', () => {
  it('keeps well-formed ids that are new to the conversation, and the reply object itself', () => {
    const message = reply(['call_a', 'toolu_b']);
    expect(withUniqueCallIds(message, [])).toBe(message);
  });

  it('renames repeated, empty, malformed and too-long ids, and ids the conversation already used', () => {
    const earlier: Message[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'used', name: 'read_file', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'used', toolName: 'read_file', content: 'x', isError: false },
    ];
    const ids = withUniqueCallIds(reply(['dup', 'dup', '', 'a/b', 'x'.repeat(41), 'used', 'call_m3_6']), earlier).toolCalls.map(
      (call) => call.id,
    );
    expect(ids).toEqual(['dup', 'call_m3_1', 'call_m3_2', 'call_m3_3', 'call_m3_4', 'call_m3_5', 'call_m3_6']);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{1,40}$/);
  });

  it('never hands out an id a later call of the reply also claims', () => {
    expect(withUniqueCallIds(reply(['x', 'x', 'call_m0_1']), []).toolCalls.map((call) => call.id)).toEqual([
      'x',
      'call_m0_1',
      'call_m0_2',
    ]);
  });

  it('keeps the arguments and names of renamed calls', () => {
    const renamed = withUniqueCallIds(reply(['same', 'same']), []);
    expect(renamed.toolCalls[1]).toEqual({ id: 'call_m0_1', name: 'write_file', arguments: '{"path":"f1"}' });
  });
});

describe('parseToolArguments', () => {
  it('refuses nesting past the bound before parsing, whatever the depth', () => {
    expect(parseToolArguments(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toEqual({
      ok: false,
      problem: 'nest 100000 levels deep; at most 64 are accepted',
    });
    expect(parseToolArguments(`${'['.repeat(64)}${']'.repeat(64)}`).ok).toBe(true);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(parseToolArguments(JSON.stringify({ text: `\\"${'{'.repeat(500)}` }))).toEqual({
      ok: true,
      value: { text: `\\"${'{'.repeat(500)}` },
    });
  });

  it('reads empty arguments as an empty object and reports malformed JSON', () => {
    expect(parseToolArguments('')).toEqual({ ok: true, value: {} });
    expect(parseToolArguments('{"a":')).toMatchObject({ ok: false, problem: expect.stringMatching(/^are not valid JSON/) });
  });
});

describe('visible', () => {
  it('escapes controls, zero-width, bidi, separators and odd spaces, and keeps plain text', () => {
    expect(visible('a\u200bb\u202ec\u2066d\x1b[2Je\u2028f\u00a0g\u3164h\t\r\n')).toBe(
      'a\\u{200B}b\\u{202E}c\\u{2066}d\\u{001B}[2Je\\u{2028}f\\u{00A0}g\\u{3164}h\\t\\r\\n',
    );
    expect(visible('Grüße, 世界 👋 plain')).toBe('Grüße, 世界 👋 plain');
  });

  it('keeps newlines only when asked', () => {
    expect(visible('a\nb', { keepNewlines: true })).toBe('a\nb');
  });
});

describe('describeCall', () => {
  it("shows a tool's own description with its preview as lines, hidden characters escaped", () => {
    const call = { id: 'w', name: 'write_file', arguments: '' };
    const described = describeCall(call, describeWrite({ path: 'a\u200b.sh', content: 'echo hi\n\u202eexit' }), 'run-1');
    expect(described).toEqual({
      summary: 'write_file "a\\u{200B}.sh" (15 bytes, 2 lines)',
      description: 'write_file "a\\u{200B}.sh" (15 bytes, 2 lines)\n  │ echo hi\n  │ \\u{202E}exit',
    });
  });

  it('describes any other call by its arguments in canonical JSON, whatever order the model wrote them in', () => {
    const call = { id: 'd', name: 'deploy', arguments: '{"note":"harmless","target":"production"}' };
    const reordered = { ...call, arguments: '{"target":"production","note":"harmless"}' };
    expect(describeCall(call, undefined, 'r')).toEqual(describeCall(reordered, undefined, 'r'));
    expect(describeCall(call, undefined, 'r').description).toBe('deploy {"note":"harmless","target":"production"}');
  });

  it('says what it clipped: a headline in its middle (its end, the file, stays), a preview at its end with where to read it whole', () => {
    const long = describeCall(
      { id: 'x', name: 'write_file', arguments: '' },
      { headline: 'h'.repeat(300), preview: 'line\n'.repeat(40) },
      'run-9',
    );
    const lines = long.description.split('\n');
    expect(lines[0]).toMatch(/^h{40,}…\[\d+ characters not shown\]…h{80,}$/);
    expect(lines[0].length).toBeLessThanOrEqual(200);
    expect(lines[0].replace(/…\[(\d+) characters not shown\]…/, (_, count: string) => 'h'.repeat(Number(count)))).toBe(
      'h'.repeat(300),
    );
    expect(lines.slice(1, 13).every((line) => line === '  │ line')).toBe(true);
    expect(lines[13]).toBe('  … 141 more characters not shown; `agent show run-9` prints the whole call');
    expect(lines).toHaveLength(14);
    expect(long.summary.length).toBeLessThanOrEqual(80);
    expect(long.summary).toMatch(/^h+…\[\d+ characters not shown\]…h+$/);
  });

  it('describes arguments it cannot parse by their raw text, escaped', () => {
    const described = describeCall({ id: 'x', name: 'deploy', arguments: '{"target":"prod\u200b' }, undefined, 'r');
    expect(described.description).toMatch(
      /^deploy \(arguments that are not valid JSON \(.+\)\)\n {2}│ \{"target":"prod\\u\{200B\}$/,
    );
  });

  it('sorts keys at every depth in canonical JSON', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
  });
});

describe('toolCallSummary', () => {
  it("names the path a call acts on, not the first value in the model's order", () => {
    expect(toolCallSummary({ id: 'w', name: 'write_file', arguments: '' }, { content: 'notes.txt', path: 'deploy.sh' })).toBe(
      'write_file deploy.sh',
    );
    expect(toolCallSummary({ id: 'd', name: 'deploy', arguments: '' }, { z: 'harmless', a: 'production' })).toBe(
      'deploy production',
    );
    expect(toolCallSummary({ id: 'r', name: 'read_file', arguments: '' }, { path: 'a\u202eb' })).toBe('read_file a\\u{202E}b');
  });

  it('names the file a path really reaches: `..` applied against the workspace, a long path cut in its middle', () => {
    const summary = (args: unknown) =>
      toolCallSummary({ id: 'w', name: 'write_file', arguments: '' }, args, { paths: ['path'], workspace: '/srv/ws' });
    expect(summary({ path: `docs/${'a'.repeat(255)}/../../.bashrc` })).toBe('write_file .bashrc');
    expect(summary({ path: '/srv/ws/src/../main.ts' })).toBe('write_file main.ts');
    const long = summary({ path: `${'deep/'.repeat(60)}secret.txt` });
    expect(long).toMatch(/^write_file deep\/.*…\[\d+ characters not shown\]….*\/secret\.txt$/);
    expect(long.length).toBeLessThanOrEqual(80);
    // A tool whose path argument has another name is named by it (the run's setup says which).
    expect(toolCallSummary({ id: 'e', name: 'edit', arguments: '' }, { file: 'x/../y.ts', note: 'a' }, { paths: ['file'] })).toBe(
      'edit y.ts',
    );
  });
});

it('takes --max-tool-calls-per-reply into the run input', () => {
  expect(agentInputFromFlags({ 'max-tool-calls-per-reply': '5' })).toMatchObject({ maxToolCallsPerReply: 5 });
  expect(() => agentInputFromFlags({ 'max-tool-calls-per-reply': 'many' })).toThrow(
    '--max-tool-calls-per-reply must be a whole number, got "many"',
  );
});
