import type { ReasoningPart } from '../../core/messages';
import { assistantMessageFromParts, producedBy, replyParts, type ReplyPart } from '../../core/reply-parts';

const claude = { provider: 'anthropic', model: 'claude-sonnet-4-6' };
const think = (text: string, source = claude): ReasoningPart => ({ type: 'thinking', ...source, text, signature: `sig-${text}` });
const call = (id: string): ReplyPart => ({ type: 'tool_call', call: { id, name: 'read_file', arguments: '{}' } });

describe('reply parts', () => {
  it('keeps thinking with its place among the text and tool calls, and gives the parts back in that order', () => {
    const parts: ReplyPart[] = [
      think('first'),
      { type: 'text', text: 'Looking.' },
      call('c1'),
      think('between'),
      { type: 'text', text: ' More.' },
      call('c2'),
    ];
    const message = assistantMessageFromParts(parts);
    expect(message).toEqual({
      role: 'assistant',
      content: 'Looking. More.',
      toolCalls: [parts[2], parts[5]].map((part) => (part as { call: unknown }).call),
      thinking: [think('first'), { ...think('between'), at: { text: 8, toolCalls: 1 } }],
    });
    expect(replyParts(message, () => true)).toEqual(parts);
  });

  it('leaves out the thinking it is not to keep, joining the text around it', () => {
    const message = assistantMessageFromParts([
      { type: 'text', text: 'a' },
      think('foreign', { provider: 'openai-responses', model: 'o4-mini' }),
      { type: 'text', text: 'b' },
      call('c1'),
    ]);
    expect(replyParts(message, producedBy(claude))).toEqual([{ type: 'text', text: 'ab' }, call('c1')]);
  });

  it('puts text before the tool calls that share a place between two thinking parts (no provider puts text after a call)', () => {
    const message = assistantMessageFromParts([think('t'), call('c1'), { type: 'text', text: 'late' }]);
    expect(replyParts(message, () => true)).toEqual([think('t'), { type: 'text', text: 'late' }, call('c1')]);
  });

  it('reads a message without thinking (stored before thinking was kept) as its text, then its tool calls', () => {
    const message = { role: 'assistant' as const, content: 'hi', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{}' }] };
    expect(replyParts(message, () => true)).toEqual([{ type: 'text', text: 'hi' }, call('c1')]);
  });

  it('keeps thinking only for the provider and model that produced it', () => {
    const keep = producedBy(claude);
    expect(keep(think('x'))).toBe(true);
    expect(keep(think('x', { provider: 'anthropic', model: 'claude-haiku-4-5' }))).toBe(false);
    expect(keep(think('x', { provider: 'openai-responses', model: 'claude-sonnet-4-6' }))).toBe(false);
  });
});
