import { compareReports } from '../../evals/report/compare-reports';
import { renderJunit } from '../../evals/report/junit';
import type { CaseOutcome, EvalCase, EvalReport } from '../../core/eval-types';
import { passAtK, repeatStats } from '../../evals/workflow/repeat-stats';
import { buildReport } from '../../evals/workflow/scores';
import type { ScoredOutcome } from '../../evals/workflow/definitions';
import { evalTable } from '../../cli/eval-table';

// Issue 37, item 6: repeats (mean, spread, pass@k per case), JUnit XML for CI, two evals side by side; and item 2's
// cut pairs, which the summary never scores.

function evalCase(id: string, recorded?: string): EvalCase {
  return {
    id,
    source: { kind: 'dataset', file: 'cases.jsonl', line: 1 },
    context: [],
    prompt: `${id}?`,
    toolFixtures: [],
    ...(recorded !== undefined && { recorded: { answer: recorded, toolCalls: [] } }),
  };
}

function scored(caseId: string, candidate: string, score: number, extra: Partial<CaseOutcome> = {}): ScoredOutcome {
  return {
    caseId,
    candidate,
    workflowId: candidate === 'recorded' ? '' : `e/${caseId}/${candidate}`,
    answer: `answer ${score}`,
    status: 'completed',
    toolCalls: [],
    usage: { inputTokens: 1, outputTokens: 1, costUsd: 0.001 },
    iterations: 1,
    grades: [{ grader: 'contains "x"', score, pass: score === 1, reason: score === 1 ? 'has it' : 'lacks <x> & "y"' }],
    score,
    pass: score === 1,
    ...extra,
  };
}

describe('passAtK', () => {
  it('is the unbiased estimator: 1 − C(n−c, k) / C(n, k)', () => {
    expect(passAtK(5, 0, 1)).toBe(0);
    expect(passAtK(5, 5, 1)).toBe(1);
    expect(passAtK(5, 2, 1)).toBeCloseTo(0.4, 12);
    // 1 − C(3,2)/C(5,2) = 1 − 3/10
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
    // n − c < k: some draw of k always holds a pass.
    expect(passAtK(5, 2, 4)).toBe(1);
    expect(() => passAtK(3, 1, 4)).toThrow(RangeError);
  });

  it('gives a case its mean, spread and pass@k for every k', () => {
    expect(
      repeatStats(
        'mini',
        [1, 0, 1, 1].map((score) => ({ score, pass: score === 1 })),
      ),
    ).toEqual({
      candidate: 'mini',
      runs: 4,
      mean: 0.75,
      stdev: Math.sqrt(0.1875),
      passAtK: [0.75, 1, 1, 1],
    });
  });
});

describe('a repeated eval', () => {
  const cases = [evalCase('a', 'rec a'), evalCase('b', 'rec b')];
  const outcomes = [
    scored('a', 'recorded', 1),
    scored('b', 'recorded', 0),
    ...[1, 0, 1].map((score, index) => scored('a', 'mini', score, { repeat: index + 1 })),
    ...[0, 0, 1].map((score, index) => scored('b', 'mini', score, { repeat: index + 1 })),
  ];
  const report = buildReport({ evalId: 'e', startedAt: 'now', cases, candidates: ['mini'], repeat: 3, outcomes, notRun: [] });

  it('lists each run, per case the stats, and in the summary runs counted and worse by the mean', () => {
    expect(report.cases[0].outcomes.map((outcome) => [outcome.candidate, outcome.repeat, outcome.score])).toEqual([
      ['recorded', undefined, 1],
      ['mini', 1, 1],
      ['mini', 2, 0],
      ['mini', 3, 1],
    ]);
    expect(report.cases[0].repeats).toEqual([
      { candidate: 'mini', runs: 3, mean: 2 / 3, stdev: expect.closeTo(Math.sqrt(2 / 9), 12), passAtK: [2 / 3, 1, 1] },
    ]);
    const mini = report.summary.find((entry) => entry.candidate === 'mini')!;
    // a: mean 0.67 under the recorded 1 (worse); b: mean 0.33 over the recorded 0.
    expect(mini).toMatchObject({ score: 0.5, passed: 3, failed: 3, worse: 1, costUsd: expect.closeTo(0.006, 12) });
    expect(mini.repeats).toMatchObject({
      runs: 6,
      mean: expect.closeTo(0.5, 12),
      passAtK: [expect.closeTo(0.5, 12), expect.closeTo((1 + 2 / 3) / 2, 12), 1],
    });
    expect(evalTable(report).split('\n')).toEqual([
      'candidate  score  passed  cost       worse  spread  pass@1  pass@3',
      'recorded   0.50   1/2     $0.000000  -      -       -       -',
      'mini       0.50   3/6     $0.006000  1      ±0.47   0.50    1.00',
    ]);
  });

  it('renders JUnit XML: a suite per candidate, a testcase per run, failures with their reasons, escaped', () => {
    const xml = renderJunit(report);
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="eval e" tests="6" failures="3" skipped="0" errors="0">/,
    );
    expect(xml).toContain('<testsuite name="mini" tests="6" failures="3" skipped="0"');
    expect(xml).not.toContain('name="recorded"');
    expect(xml).toContain('<testcase classname="mini" name="a (run 1)" time="0"/>');
    expect(xml).toContain(
      '<failure message="score 0.00 (recorded scored 1.00), status completed" type="completed">contains &quot;x&quot;: 0.00, lacks &lt;x&gt; &amp; &quot;y&quot;\nanswer: answer 0</failure>',
    );
  });
});

it('never scores a cut pair: not passed, failed or worse, its spend counted, and skipped in JUnit', () => {
  const report = buildReport({
    evalId: 'e',
    startedAt: 'now',
    cases: [evalCase('a', 'rec'), evalCase('b', 'rec')],
    candidates: ['mini'],
    outcomes: [scored('a', 'recorded', 1), scored('b', 'recorded', 1), scored('a', 'mini', 1)],
    cut: [{ case: 'b', candidate: 'mini', costUsd: 0.0005 }],
    notRun: ['b'],
  });
  expect(report.summary[1]).toEqual({ candidate: 'mini', score: 1, passed: 1, failed: 0, costUsd: 0.0015, worse: 0 });
  expect(report.stopped).toEqual({ reason: 'budget', notRun: ['b'], cut: [{ case: 'b', candidate: 'mini', costUsd: 0.0005 }] });
  const xml = renderJunit(report);
  expect(xml).toContain('tests="2" failures="0" skipped="1"');
  expect(xml).toContain(
    '<testcase classname="mini" name="b" time="0">\n      <skipped message="not run: the eval budget stopped it"/>',
  );
});

it('compares two evals on the cases both answered, each candidate named after its eval', () => {
  const cases = [evalCase('a', 'rec'), evalCase('b', 'rec'), evalCase('c', 'rec')];
  const first = buildReport({
    evalId: 'monday',
    startedAt: 'now',
    cases: cases.slice(0, 2),
    candidates: ['mini'],
    outcomes: [scored('a', 'recorded', 1), scored('b', 'recorded', 1), scored('a', 'mini', 1), scored('b', 'mini', 0)],
    notRun: [],
  });
  const second = buildReport({
    evalId: 'tuesday',
    startedAt: 'later',
    cases: cases.slice(1),
    candidates: ['mini'],
    outcomes: [scored('b', 'recorded', 1), scored('c', 'recorded', 1), scored('b', 'mini', 1), scored('c', 'mini', 1)],
    notRun: [],
  });
  const comparison: EvalReport = compareReports(first, second);
  expect(comparison.candidates).toEqual(['recorded', 'mini@monday', 'mini@tuesday']);
  expect(
    comparison.cases.map((entry) => [entry.case.id, entry.outcomes.map((outcome) => [outcome.candidate, outcome.score])]),
  ).toEqual([
    [
      'b',
      [
        ['recorded', 1],
        ['mini@monday', 0],
        ['mini@tuesday', 1],
      ],
    ],
  ]);
  expect(comparison.summary.map((entry) => [entry.candidate, entry.score, entry.worse])).toEqual([
    ['recorded', 1, 0],
    ['mini@monday', 0, 1],
    ['mini@tuesday', 1, 0],
  ]);
  expect(comparison.compared).toEqual({ evals: ['monday', 'tuesday'], onlyInFirst: ['a'], onlyInSecond: ['c'] });
  expect(evalTable(comparison)).toContain('left out, only in monday: a\nleft out, only in tuesday: c');
});
