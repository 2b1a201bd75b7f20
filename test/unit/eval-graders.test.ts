import { RE2JS } from 're2js';
import { ConfigurationError } from '../../core/errors';
import { checkGraderSpecs, graderSpecProblems } from '../../evals/graders/check-grader-specs';
import { gradeBuiltIn } from '../../evals/graders/grade-built-in';
import { estimateProgramSize, graderPatternLimits } from '../../evals/graders/grader-pattern';
import { graderLabel } from '../../evals/graders/grader-label';
import type { CaseOutcome, GraderSpec } from '../../core/eval-types';

function outcome(overrides: Partial<CaseOutcome> = {}): CaseOutcome {
  return {
    caseId: 'case-1',
    candidate: 'cheap',
    workflowId: 'eval-1-case-1-cheap',
    answer: 'You can get a Refund within 30 days.',
    status: 'completed',
    toolCalls: [],
    usage: { inputTokens: 100, outputTokens: 20, costUsd: 0.002 },
    iterations: 1,
    ...overrides,
  };
}

function grade(spec: GraderSpec, overrides: Partial<CaseOutcome> = {}) {
  checkGraderSpecs([spec]);
  return gradeBuiltIn(spec, outcome(overrides));
}

describe('text graders', () => {
  it('equals compares the trimmed answer, exactly or in any case', () => {
    expect(grade({ type: 'equals', value: 'Paris' }, { answer: 'Paris\n' })).toMatchObject({ score: 1, pass: true });
    expect(grade({ type: 'equals', value: 'Paris' }, { answer: 'paris' })).toMatchObject({
      score: 0,
      pass: false,
      reason: 'the answer is "paris"',
    });
    expect(grade({ type: 'equals', value: 'Paris', ignoreCase: true }, { answer: ' PARIS ' }).pass).toBe(true);
  });

  it('contains finds the value anywhere, case-sensitively unless told', () => {
    expect(grade({ type: 'contains', value: 'refund' })).toMatchObject({ pass: false, reason: 'the answer lacks "refund"' });
    expect(grade({ type: 'contains', value: 'refund', ignoreCase: true })).toMatchObject({ score: 1, pass: true });
    expect(graderLabel({ type: 'contains', value: 'refund', ignoreCase: true })).toBe('contains "refund" (any case)');
  });

  it('regex matches on RE2 with the i, m and s flags', () => {
    expect(grade({ type: 'regex', pattern: '\\brefund\\b', flags: 'i' })).toMatchObject({ score: 1, pass: true });
    expect(grade({ type: 'regex', pattern: '^within', flags: 'm' }, { answer: 'a\nwithin' }).pass).toBe(true);
    expect(grade({ type: 'regex', pattern: '^within' }, { answer: 'a\nwithin' }).pass).toBe(false);
    expect(grade({ type: 'regex', pattern: 'a.b', flags: 's' }, { answer: 'a\nb' }).pass).toBe(true);
    expect(graderLabel({ type: 'regex', pattern: 'refund', flags: 'i' })).toBe('regex /refund/i');
  });

  it('fails every grader of a run that failed, with its error', () => {
    expect(grade({ type: 'contains', value: 'x' }, { status: 'failed', answer: '', error: 'provider said 400' })).toEqual({
      grader: 'contains "x"',
      score: 0,
      pass: false,
      reason: 'the run failed: provider said 400',
    });
  });
});

describe('hostile regular expressions', () => {
  it('answers a catastrophic-backtracking pattern at once (RE2 has no backtracking)', () => {
    // On JavaScript's RegExp, (a+)+$ over 40 "a"s and a "b" takes about 2^40 steps: this test would never end.
    expect(grade({ type: 'regex', pattern: '(a+)+$' }, { answer: `${'a'.repeat(40)}b` })).toMatchObject({ pass: false });
  });

  it('refuses, when the specs are checked, a pattern whose program is too large to match cheaply', () => {
    // Over a second per 4 KB line on re2js (tools/line-matcher.ts): refused before it is compiled.
    expect(graderSpecProblems([{ type: 'regex', pattern: '.{0,1000}.{0,1000}.{0,1000}.{0,1000}c$' }])).toEqual([
      expect.stringMatching(
        /^graders\[0\] \(regex\): the pattern is too complex for a grader \(about \d+ steps per character, at most 2000\)/,
      ),
    ]);
    expect(graderSpecProblems([{ type: 'regex', pattern: '(a{0,30}){0,30}' }])[0]).toMatch(/too complex/);
    expect(graderSpecProblems([{ type: 'regex', pattern: 'x'.repeat(1001) }])).toEqual([
      'graders[0] (regex): the pattern is over 1000 characters',
    ]);
  });

  it('fails a grade, the same way every time, when the answer is too long for the pattern’s match budget', () => {
    const pattern = '(a+)+$'; // 8 instructions: 2,000,000 / 8 = 250,000 characters at most
    const longAnswer = `${'a'.repeat(300_000)}b`;
    expect(grade({ type: 'regex', pattern }, { answer: longAnswer })).toMatchObject({
      pass: false,
      reason: expect.stringContaining('(300001 characters) is too long to match against this pattern'),
    });
    expect(grade({ type: 'regex', pattern }, { answer: longAnswer.slice(100_000) }).reason).toBe('the answer does not match');
  });

  it('names invalid patterns and flags clearly when the specs are checked, not mid-eval', () => {
    expect(
      graderSpecProblems([
        { type: 'regex', pattern: '(?=lookahead)' },
        { type: 'regex', pattern: 'a(b' },
        { type: 'regex', pattern: 'a', flags: 'g' },
        { type: 'regex', pattern: '' },
      ]),
    ).toEqual([
      expect.stringMatching(/^graders\[0\] \(regex\): invalid regular expression \(RE2 syntax\): /),
      expect.stringMatching(/^graders\[1\] \(regex\): invalid regular expression \(RE2 syntax\): missing closing \)/),
      'graders[2] (regex): unknown flag "g" (a regex grader takes i, m and s)',
      'graders[3] (regex): the pattern must be a non-empty string',
    ]);
  });

  it('never estimates a program smaller than RE2 compiles it', () => {
    const patterns = [
      'refund',
      '(?i)refund.*policy',
      '.{0,100}.{0,100}c$',
      '(a+)+$',
      '[a-z]{0,50}z$',
      '(a|b|c){3,5}',
      '((ab){10}c){10}',
      '\\p{Greek}+',
      '\\pL{20}',
      '\\x{263a}{5}',
      '[[:alpha:]]{20}',
      '(?:x|y|z)*',
      'a{2,}',
      '\\bre(fund|turn)s?\\b',
      '[^]a]{30}',
      'é{100}',
      '(?i)[a-zé]{100}',
      '(?s).{500}',
      'x{900}',
      '(a{0,30}){0,20}',
      '^\\d{3}-\\d{4}$',
      '\\Q.*(\\E{10}',
      '(x|yy|zzz){0,100}',
      '[\\]]{40}',
      '(?i)(?:ab|cd){2,40}',
      '((((a{2}){2}){2}){2}){2}',
    ];
    for (const pattern of patterns) {
      const compiled = RE2JS.compile(pattern).re2Input.prog.numInst();
      expect({ pattern, estimate: estimateProgramSize(pattern) }).toEqual({ pattern, estimate: expect.any(Number) });
      expect(estimateProgramSize(pattern)).toBeGreaterThanOrEqual(compiled);
    }
    expect(graderPatternLimits.maxProgramSize).toBe(2000);
  });
});

describe('output-schema', () => {
  const schema = {
    type: 'object',
    properties: { decision: { enum: ['approve', 'deny'] }, code: { type: 'string', pattern: '^[A-Z]{3}-\\d+$' } },
    required: ['decision'],
    additionalProperties: false,
  };

  it("passes an agent's structured output without a schema, and fails a run that had none", () => {
    expect(grade({ type: 'output-schema' }, { output: { decision: 'approve' } })).toMatchObject({ pass: true });
    expect(grade({ type: 'output-schema' }, { status: 'invalid_output' })).toMatchObject({
      pass: false,
      reason: 'no structured output (the run ended invalid_output)',
    });
  });

  it('checks the output, or the answer as JSON, against a given schema with its standard meaning', () => {
    expect(grade({ type: 'output-schema', schema }, { answer: '```json\n{"decision":"deny","code":"ABC-12"}\n```' }).pass).toBe(
      true,
    );
    expect(grade({ type: 'output-schema', schema }, { output: { decision: 'maybe', code: 'abc', extra: 1 } })).toMatchObject({
      pass: false,
      reason:
        'output.decision: must be one of "approve", "deny"; output.code: must match ^[A-Z]{3}-\\d+$; output.extra: not allowed',
    });
    expect(grade({ type: 'output-schema', schema }, { answer: 'Sure! {"decision":' }).reason).toMatch(/^the answer is not JSON/);
  });

  it('refuses a schema with keywords it does not check, or a bad pattern, before anything runs', () => {
    expect(
      graderSpecProblems([
        { type: 'output-schema', schema: { type: 'object', $ref: '#/defs/x', properties: { a: { type: 'date' } } } },
      ]),
    ).toEqual([
      'graders[0] (output-schema): schema #: keyword "$ref" is not supported by the output-schema grader',
      'graders[0] (output-schema): schema #/properties/a/type: must be one of object, array, string, number, integer, boolean, null, or a list of them',
    ]);
    expect(graderSpecProblems([{ type: 'output-schema', schema: { type: 'string', pattern: '(?<=x)' } }])[0]).toMatch(
      /^graders\[0\] \(output-schema\): schema #\/pattern: invalid regular expression/,
    );
  });

  it('bounds the work of a schema: its size when the specs are checked, the check of a huge output when grading', () => {
    // Shared subschemas make a schema of 2^30 paths from 31 objects: refused by its size, not walked.
    let nested: Record<string, unknown> = { type: 'number' };
    for (let level = 0; level < 30; level++) nested = { anyOf: [{ type: 'string' }, nested, nested] };
    expect(graderSpecProblems([{ type: 'output-schema', schema: nested }])).toEqual([
      'graders[0] (output-schema): schema #: the schema is over 2000 subschemas',
    ]);
    const items = { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'boolean' }, { type: 'number' }] } };
    const huge = grade({ type: 'output-schema', schema: items }, { output: Array.from({ length: 50_000 }, (_, index) => index) });
    expect(huge.pass).toBe(false);
    expect(huge.reason).toContain('the schema is too costly to check against this output');
  });
});

describe('tool-calls', () => {
  const calls = [
    { name: 'read_file', arguments: { path: 'src/config.ts', limit: 50 } },
    { name: 'search_files', arguments: { pattern: 'TODO' } },
  ];

  it('scores the share of expected calls made, arguments matched as subsets', () => {
    expect(
      grade({ type: 'tool-calls', calls: [{ name: 'read_file', arguments: { path: 'src/config.ts' } }] }, { toolCalls: calls }),
    ).toMatchObject({ score: 1, pass: true });
    expect(
      grade(
        { type: 'tool-calls', calls: [{ name: 'read_file', arguments: { path: 'README.md' } }, { name: 'search_files' }] },
        { toolCalls: calls },
      ),
    ).toMatchObject({
      score: 0.5,
      pass: false,
      reason: 'no call read_file {"path":"README.md"} (1 call of read_file with other arguments)',
    });
  });

  it('fails a call of a tool outside `only`', () => {
    expect(grade({ type: 'tool-calls', only: ['read_file'] }, { toolCalls: calls })).toMatchObject({
      score: 0,
      pass: false,
      reason: 'called tools outside [read_file]: search_files',
    });
    expect(grade({ type: 'tool-calls', only: [] }, { toolCalls: [] }).pass).toBe(true);
  });
});

describe('bounds', () => {
  it('scores the share of bounds held, naming each one broken', () => {
    expect(
      grade(
        { type: 'bounds', maxCostUsd: 0.001, maxIterations: 3, maxToolCalls: 0 },
        { toolCalls: [{ name: 'read_file', arguments: {} }] },
      ),
    ).toMatchObject({ score: 1 / 3, pass: false, reason: 'cost $0.002000, over $0.001; 1 tool calls, over 0' });
    expect(grade({ type: 'bounds', maxCostUsd: 0.01, maxIterations: 1 })).toMatchObject({ score: 1, pass: true });
  });

  it('does not pass a cost bound when the cost is not known', () => {
    expect(
      grade({ type: 'bounds', maxCostUsd: 1 }, { usage: { inputTokens: 1, outputTokens: 1, costUsd: 0, unpricedCalls: 1 } }),
    ).toMatchObject({
      pass: false,
      reason: 'cost not known (1 model calls without a price)',
    });
  });
});

describe('checkGraderSpecs', () => {
  it('lists every problem of a bad list of specs at once, and throws a ConfigurationError', () => {
    const specs = [
      { type: 'equal', value: 'x' },
      { type: 'contains', value: 'x', ignorecase: true },
      { type: 'bounds' },
      { type: 'bounds', maxCostUsd: -1 },
      { type: 'tool-calls', calls: [{ name: 'read_file', arguments: 'path' }] },
      { type: 'judge', rubric: ' ', model: 'gpt-4o' },
      { type: 'custom', name: 'tone' },
      { type: 'judge', rubric: 'Is it polite?', model: 'openai:gpt-4o-mini', passScore: 2 },
    ];
    expect(graderSpecProblems(specs, 'dataset.jsonl:3 graders', { customGraders: ['politeness'] })).toEqual([
      'dataset.jsonl:3 graders[0]: "type" must be one of equals, contains, regex, output-schema, tool-calls, bounds, judge, custom',
      'dataset.jsonl:3 graders[1] (contains): unknown field "ignorecase" (a contains grader takes value, ignoreCase)',
      'dataset.jsonl:3 graders[2] (bounds): give at least one of maxCostUsd, maxIterations, maxToolCalls',
      'dataset.jsonl:3 graders[3] (bounds): "maxCostUsd" must be a number, 0 or more',
      'dataset.jsonl:3 graders[4] (tool-calls): calls[0]: "arguments" must be an object',
      'dataset.jsonl:3 graders[5] (judge): "rubric" must be a non-empty string',
      'dataset.jsonl:3 graders[5] (judge): "model": model must look like provider:model (for example openai:gpt-4o-mini), got "gpt-4o"',
      'dataset.jsonl:3 graders[6] (custom): no grader named "tone" is registered (known: politeness)',
      'dataset.jsonl:3 graders[7] (judge): "passScore" must be a number from 0 to 1',
    ]);
    expect(() => checkGraderSpecs(specs)).toThrow(ConfigurationError);
    expect(() => checkGraderSpecs('contains refund')).toThrow('bad grader specs: graders: must be a list of graders');
    expect(checkGraderSpecs([{ type: 'contains', value: 'ok' }])).toEqual([{ type: 'contains', value: 'ok' }]);
  });
});
