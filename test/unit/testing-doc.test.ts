import { readFileSync } from 'node:fs';
import path from 'node:path';

// docs/testing.md quotes the worked example's files word for word; CI runs those files (test/examples/testing-kit.test.ts),
// so the doc's code is tested code as long as each quote is still the file.

const root = path.join(__dirname, '..', '..');
const doc = readFileSync(path.join(root, 'docs', 'testing.md'), 'utf8');
const quotes = [...doc.matchAll(/<!-- quoted: (\S+) -->\n```ts\n([\s\S]*?)```\n/g)].map(([, file, code]) => ({ file, code }));

it('quotes the example test files and agents of the worked example', () => {
  expect(quotes.map(({ file }) => file)).toEqual([
    'examples/testing-kit/test/first.test.ts',
    'examples/testing-kit/src/agents.ts',
    'examples/testing-kit/test/support.test.ts',
    'examples/testing-kit/test/replay.test.ts',
  ]);
});

it.each(quotes.map(({ file, code }) => [file, code]))('its quote of %s is the file, word for word', (file, code) => {
  expect(code).toBe(readFileSync(path.join(root, file), 'utf8'));
});

it('every quote marker is followed by its code block', () => {
  expect(doc.match(/<!-- quoted: /g)).toHaveLength(quotes.length);
});
