import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { casesFromDataset, parseDataset } from '../../evals/cases';
import { toolPairingProblems } from '../../core/tool-pairing';

// JSONL datasets: every good line a case with GraderSpecs; any bad line an error naming file:line, and no case.

it('reads prompts, contexts, GraderSpecs and the shorthand, with ids from the line or the file', async () => {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'eval-dataset-'));
  const file = path.join(directory, 'support.jsonl');
  const context = [
    { role: 'user', content: 'read a.txt' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'evil id/1', name: 'read_file', arguments: '{"path":"a.txt"}' }] },
    { role: 'tool', toolCallId: 'evil id/1', toolName: 'read_file', content: 'alpha', isError: false },
    { role: 'assistant', content: 'It says alpha.', toolCalls: [] },
  ];
  const lines = [
    JSON.stringify({ input: 'What is our refund window?', expect: { contains: ['30 days', 'refund'], maxIterations: 3 } }),
    '',
    JSON.stringify({ id: 'follow-up', input: { prompt: 'And b.txt?', context }, expect: [{ type: 'equals', value: 'beta' }] }),
    JSON.stringify({ input: 'Any tools?', expect: { type: 'tool-calls', only: ['read_file'] } }),
    JSON.stringify({ input: 'Plain' }),
  ];
  await writeFile(file, lines.join('\n'));
  const cases = await casesFromDataset(file);
  expect(cases.map((entry) => entry.id)).toEqual(['support.jsonl:1', 'follow-up', 'support.jsonl:4', 'support.jsonl:5']);
  expect(cases[0]).toMatchObject({
    source: { kind: 'dataset', file, line: 1 },
    prompt: 'What is our refund window?',
    context: [],
    toolFixtures: [],
    graders: [
      { type: 'contains', value: '30 days' },
      { type: 'contains', value: 'refund' },
      { type: 'bounds', maxIterations: 3 },
    ],
  });
  expect(cases[1].graders).toEqual([{ type: 'equals', value: 'beta' }]);
  // The context keeps its pairing under ids every provider accepts.
  expect(toolPairingProblems(cases[1].context)).toEqual([]);
  expect(JSON.stringify(cases[1].context)).not.toContain('evil id');
  expect(cases[2].graders).toEqual([{ type: 'tool-calls', only: ['read_file'] }]);
  expect(cases[3].graders).toBeUndefined();
});

it('names every bad line with what is wrong, and makes no case', () => {
  const text = [
    JSON.stringify({ input: 'fine' }),
    '{"input": "unterminated',
    JSON.stringify({ input: '   ' }),
    JSON.stringify({ input: 'x', expect: { contains: 'a', sounds: 'loud' } }),
    JSON.stringify({ input: 'x', expect: [{ type: 'judge', rubric: 'kind' }] }),
    JSON.stringify({ id: 'dup', input: 'a' }),
    JSON.stringify({ id: 'dup', input: 'b' }),
    JSON.stringify({
      input: { prompt: 'p', context: [{ role: 'tool', toolCallId: 'x', toolName: 'read_file', content: '', isError: false }] },
    }),
    JSON.stringify({ input: 'x', expect: { regex: '(' } }),
    JSON.stringify({ prompt: 'no input key' }),
  ].join('\n');
  let message = '';
  try {
    parseDataset(text, 'cases.jsonl');
  } catch (error) {
    message = (error as Error).message;
  }
  expect(message).toMatch(/8 bad line\(s\); no case is made/);
  expect(message).toMatch(/^cases\.jsonl:2: not JSON/m);
  expect(message).toMatch(/^cases\.jsonl:3: input.*the prompt is empty/m);
  expect(message).toMatch(/^cases\.jsonl:4: expect.*sounds/m);
  expect(message).toMatch(/^cases\.jsonl:5: expect.*model/m);
  expect(message).toMatch(/^cases\.jsonl:7: the id "dup" is also the id of line 6/m);
  expect(message).toMatch(/^cases\.jsonl:8: .*answers no open tool call/m);
  expect(message).toMatch(/^cases\.jsonl:9: expect: the regex "\(" is not one/m);
  expect(message).toMatch(/^cases\.jsonl:10: .*input/m);
  expect(message).not.toMatch(/cases\.jsonl:1:/);
});
