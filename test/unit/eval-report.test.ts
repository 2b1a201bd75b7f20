import { diffLines } from '../../evals/report/answer-diff';
import { escapeHtml } from '../../evals/report/html-text';
import { foldAnswer, renderReport } from '../../evals/report/render-report';
import type { EvalReport } from '../../core/eval-types';
import { printable } from '../../cli/terminal-text';

// The HTML report's text as a reviewer reads it (issue 37): controls and bidi overrides escaped as the CLI escapes
// them, a diff of each answer against the recorded one, and long answers folded.

type Outcome = EvalReport['cases'][number]['outcomes'][number];

function outcome(candidate: string, answer: string, fields: Partial<Outcome> = {}): Outcome {
  return {
    caseId: 'refund',
    candidate,
    workflowId: candidate === 'recorded' ? '' : `eval-7/refund/${candidate}`,
    answer,
    status: 'completed',
    toolCalls: [],
    usage: { inputTokens: 10, outputTokens: 2, costUsd: 0.0001 },
    iterations: 1,
    grades: [],
    score: 1,
    pass: true,
    ...fields,
  };
}

function report(outcomes: Outcome[], fields: Partial<EvalReport> = {}): EvalReport {
  return {
    evalId: 'eval-7',
    startedAt: '2026-12-01T12:00:00.000Z',
    candidates: outcomes.map((entry) => entry.candidate),
    cases: [{ case: { id: 'refund', source: { kind: 'dataset', file: 'cases.jsonl', line: 1 }, prompt: 'Refund?' }, outcomes }],
    summary: outcomes.map((entry) => ({ candidate: entry.candidate, score: 1, passed: 1, failed: 0, costUsd: 0, worse: 0 })),
    ...fields,
  };
}

describe('escapeHtml', () => {
  it('shows bidi controls and ESC as the CLI shows them, and escapes markup', () => {
    const hostile = 'pay \u202Eevil\u202C now \u2066x\u2069 \u001b[2J<b>&</b>\r\nnext\tline';
    const html = escapeHtml(hostile);
    expect(html).toBe('pay \\u{202E}evil\\u{202C} now \\u{2066}x\\u{2069} \\u{001B}[2J&lt;b&gt;&amp;&lt;/b&gt;\nnext\tline');
    // The same characters the terminal gets escaped, before the markup is.
    expect(html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')).toBe(printable(hostile));
    expect(html).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/u);
    expect([...html].filter((character) => /\p{Cc}/u.test(character) && character !== '\n' && character !== '\t')).toEqual([]);
  });
});

describe('renderReport', () => {
  it('lets no control or bidi override of an answer, prompt, id or reason reach the page raw', () => {
    const html = renderReport(
      report([
        outcome('recorded', 'fine'),
        outcome('mini', 'transfer \u202E$100\u202C to \u001b]0;title\u0007', {
          grades: [{ grader: 'judge: \u2067x', score: 1, pass: true, reason: 'ok \u202Dy' }],
        }),
      ]),
    );
    expect(html).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/u);
    expect([...html].filter((character) => /\p{Cc}/u.test(character) && character !== '\n')).toEqual([]);
    expect(html).toContain('transfer \\u{202E}$100\\u{202C} to \\u{001B}]0;title\\u{0007}');
    expect(html).toContain('ok \\u{202D}y');
  });

  it('shows each answer against the recorded one, line by line, folded', () => {
    const html = renderReport(
      report([outcome('recorded', 'Refunds:\nwithin 30 days.\nThanks'), outcome('mini', 'Refunds:\nwithin 14 days.\nThanks')]),
    );
    const diff =
      /<details class="diff"><summary>diff against recorded <span class="muted">\(\+1 −1 lines\)<\/span><\/summary><pre class="diff">([^]*?)<\/pre><\/details>/.exec(
        html,
      );
    expect(diff?.[1].split('\n')).toEqual([
      '<span>  Refunds:</span>',
      '<del>- within 30 days.</del>',
      '<ins>+ within 14 days.</ins>',
      '<span>  Thanks</span>',
    ]);
    // The recorded column has no diff of its own; an unchanged answer says so.
    expect(html.match(/class="diff"/g)).toHaveLength(2);
    expect(renderReport(report([outcome('recorded', 'same'), outcome('mini', 'same')]))).toContain('the same answer as recorded');
  });

  it('folds a long answer under its first line and its length, and keeps a short one open', () => {
    const long = `First line of a long answer\n${'more text '.repeat(foldAnswer.chars / 5)}`;
    const html = renderReport(report([outcome('mini', long), outcome('other', 'Short.')]));
    expect(html).toContain(
      `<details class="fold"><summary>First line of a long answer <span class="muted">(${long.length} characters)</span></summary><pre class="answer">`,
    );
    expect(html).toContain('<pre class="answer">Short.</pre>');
    expect(html.match(/<details class="fold">/g)).toHaveLength(1);
  });
});

describe('diffLines', () => {
  it('keeps common lines and marks removed and added ones in order', () => {
    expect(diffLines('a\nb\nc\nd', 'a\nc\nx\nd')).toEqual([
      { kind: ' ', text: 'a' },
      { kind: '-', text: 'b' },
      { kind: ' ', text: 'c' },
      { kind: '+', text: 'x' },
      { kind: ' ', text: 'd' },
    ]);
    expect(diffLines('', 'new')).toEqual([
      { kind: '-', text: '' },
      { kind: '+', text: 'new' },
    ]);
  });

  it('gives up on answers too long to diff, rather than blocking', () => {
    const lines = Array.from({ length: 3000 }, (_, index) => `line ${index}`).join('\n');
    expect(diffLines(lines, `${lines}\nend`)).toBeUndefined();
  });
});
