import { readableThinking } from '../../core/stream-events';

// The stream tells a reply's thinking as its readable parts' text (test/workflow/stream.test.ts runs it end to end).
it('tells the readable thinking parts joined by a blank line, and never a redacted one', () => {
  const parts = [
    { type: 'thinking', provider: 'anthropic', model: 'claude-haiku-4-5', text: 'paid on the 3rd', signature: 'sig' },
    { type: 'redacted_thinking', provider: 'anthropic', model: 'claude-haiku-4-5', data: 'OPAQUE-REDACTED' },
    { type: 'thinking', provider: 'anthropic', model: 'claude-haiku-4-5', text: 'no more due', signature: 'sig2' },
  ];
  expect(readableThinking(parts)).toBe('paid on the 3rd\n\nno more due');
  expect(readableThinking([parts[1]])).toBe('');
});
