import { compactOldTurns } from '../../core/context-view';
import type { AssistantMessage, Message } from '../../core/messages';

const thought = (text: string): AssistantMessage => ({
  role: 'assistant',
  content: '',
  toolCalls: [{ id: `c-${text}`, name: 'read_file', arguments: '{}' }],
  thinking: [{ type: 'thinking', provider: 'anthropic', model: 'claude', text, signature: `sig-${text}` }],
});
const result = (text: string): Message => ({
  role: 'tool',
  toolCallId: `c-${text}`,
  toolName: 'read_file',
  content: 'x',
  isError: false,
});

describe('compacting old turns', () => {
  it('leaves the thinking of old turns out whole, and keeps the thinking of the tool loop in progress however old', () => {
    const messages: Message[] = [
      { role: 'user', content: 'first task' },
      thought('earlier'),
      result('earlier'),
      { role: 'assistant', content: 'done', toolCalls: [] },
      { role: 'user', content: 'second task' },
      thought('loop start'),
      result('loop start'),
      thought('loop next'),
      result('loop next'),
    ];
    const compacted = compactOldTurns(messages, 1);
    expect((compacted[1] as AssistantMessage).thinking).toBeUndefined();
    expect((compacted[1] as AssistantMessage).toolCalls).toEqual(thought('earlier').toolCalls);
    expect((compacted[5] as AssistantMessage).thinking).toEqual(thought('loop start').thinking);
    expect(compacted[7]).toEqual(messages[7]);
  });

  it('keeps the thinking of a tool loop that a steering message joined: the loop began before it', () => {
    const messages: Message[] = [
      { role: 'user', content: 'the task' },
      thought('loop start'),
      result('loop start'),
      { role: 'user', content: 'not that file', steering: true },
      thought('after steering'),
      result('after steering'),
    ];
    const compacted = compactOldTurns(messages, 1);
    expect((compacted[1] as AssistantMessage).thinking).toEqual(thought('loop start').thinking);
  });
});
