import { batchAnswer, lineFor } from '../../providers/openai/batch';
import { BatchRequestLost } from '../../providers/batch-capability';

// A batch's result file is the server's words: read like any model reply, as untrusted input.
const line = (customId: string, content = 'hi') =>
  JSON.stringify({
    id: 'r',
    custom_id: customId,
    response: { status_code: 200, body: { choices: [{ message: { content } }] } },
    error: null,
  });

describe('reading a batch result file', () => {
  it('finds the line that answers the request, among others', () => {
    expect(lineFor([line('other'), line('mine', 'the answer')].join('\n'), 'mine')?.response?.body).toEqual({
      choices: [{ message: { content: 'the answer' } }],
    });
  });

  it('skips lines that are not JSON, or not objects, instead of failing on them', () => {
    expect(lineFor(['{broken', '42', 'null', line('mine')].join('\n'), 'mine')).toBeDefined();
  });

  it('refuses two answers claiming one request rather than picking one', () => {
    expect(() => lineFor([line('mine', 'first'), line('mine', 'second')].join('\n'), 'mine')).toThrow(BatchRequestLost);
  });

  it('finds nothing for a request the file does not answer', () => {
    expect(lineFor(line('other'), 'mine')).toBeUndefined();
  });
});

describe('a batch answer body', () => {
  it.each([null, 'text', 42, [], {}, { choices: 'no' }])('refuses %p as a reply, in words', (body) => {
    expect(() => batchAnswer(body)).toThrow(/the batch answer/);
  });

  it('passes a Chat Completion or a Response on to the converter', () => {
    expect(batchAnswer({ choices: [] })).toEqual({ choices: [] });
    expect(batchAnswer({ output: [] })).toEqual({ output: [] });
  });
});
