import type { CaseReport, EvalReport } from '../../core/eval-types';
import { escapeHtml } from './html-text';

type Outcome = CaseReport['outcomes'][number];

/**
 * An eval as JUnit XML, the report CI systems read (GitHub, GitLab, Jenkins, CircleCI): one testsuite per candidate
 * (the recorded baseline is the reference, not under test), one testcase per case it answered (per run, with
 * `--repeat`), a failure when the outcome did not pass, saying its score and each failing grade's reason, and a
 * skipped testcase for every case the budget left unrun or cut. Text is escaped as in the HTML report: markup as
 * entities, controls (never valid in XML 1.0) as visible escapes.
 */
export function renderJunit(report: EvalReport): string {
  const candidates = report.candidates.filter((name) => name !== 'recorded');
  const suites = candidates.map((candidate) => suite(report, candidate));
  const total = (key: 'tests' | 'failures' | 'skipped') => suites.reduce((sum, entry) => sum + entry[key], 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(`eval ${report.evalId}`)}" tests="${total('tests')}" failures="${total('failures')}" skipped="${total('skipped')}" errors="0">`,
    ...suites.map((entry) => entry.xml),
    '</testsuites>',
    '',
  ].join('\n');
}

function suite(report: EvalReport, candidate: string) {
  const testcases: string[] = [];
  let failures = 0;
  for (const entry of report.cases) {
    const baseline = entry.outcomes.find((outcome) => outcome.candidate === 'recorded');
    for (const outcome of entry.outcomes.filter((item) => item.candidate === candidate)) {
      const name = xml(outcome.repeat !== undefined ? `${entry.case.id} (run ${outcome.repeat})` : entry.case.id);
      const time = ` time="0"`;
      if (outcome.pass) {
        testcases.push(`    <testcase classname="${xml(candidate)}" name="${name}"${time}/>`);
        continue;
      }
      failures++;
      testcases.push(
        `    <testcase classname="${xml(candidate)}" name="${name}"${time}>`,
        `      <failure message="${xml(failureSummary(outcome, baseline))}" type="${xml(outcome.status)}">${xml(failureDetails(outcome))}</failure>`,
        '    </testcase>',
      );
    }
  }
  const notRun = notRunCases(report, candidate);
  for (const caseId of notRun)
    testcases.push(
      `    <testcase classname="${xml(candidate)}" name="${xml(caseId)}" time="0">`,
      '      <skipped message="not run: the eval budget stopped it"/>',
      '    </testcase>',
    );
  const tests = testcases.filter((line) => line.startsWith('    <testcase')).length;
  const skipped = notRun.length;
  return {
    tests,
    failures,
    skipped,
    xml: [
      `  <testsuite name="${xml(candidate)}" tests="${tests}" failures="${failures}" skipped="${skipped}" errors="0" timestamp="${xml(report.startedAt.replace(/\.\d+Z$/, ''))}">`,
      ...testcases,
      '  </testsuite>',
    ].join('\n'),
  };
}

/** The cases this candidate has no outcome for while the budget stopped the eval (never run, or cut mid-way). */
function notRunCases(report: EvalReport, candidate: string): string[] {
  if (!report.stopped) return [];
  const answered = new Set(
    report.cases
      .filter((entry) => entry.outcomes.some((outcome) => outcome.candidate === candidate))
      .map((entry) => entry.case.id),
  );
  const cut = (report.stopped.cut ?? []).filter((pair) => pair.candidate === candidate).map((pair) => pair.case);
  return [...new Set([...report.stopped.notRun.filter((id) => !answered.has(id)), ...cut])];
}

function failureSummary(outcome: Outcome, baseline: Outcome | undefined): string {
  const worse = baseline && outcome.score < baseline.score ? ` (recorded scored ${baseline.score.toFixed(2)})` : '';
  return outcome.status === 'failed'
    ? `the run failed: ${outcome.error ?? 'no reason given'}`
    : `score ${outcome.score.toFixed(2)}${worse}, status ${outcome.status}`;
}

function failureDetails(outcome: Outcome): string {
  const grades = outcome.grades
    .filter((grade) => !grade.pass)
    .map((grade) => `${grade.grader}: ${grade.score.toFixed(2)}, ${grade.reason}`);
  return [...grades, `answer: ${outcome.answer.slice(0, 2_000)}`].join('\n');
}

/** XML text and attribute values: escaped like the HTML report's, and with no character XML 1.0 forbids. */
function xml(text: string): string {
  return escapeHtml(text).replace(/[\p{Cs}\uFFFE\uFFFF]/gu, '\uFFFD');
}
