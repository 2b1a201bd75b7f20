import type { CaseReport, EvalReport, GradeResult, ObservedToolCall, RepeatStats } from '../../core/eval-types';
import { diffLines } from './answer-diff';
import { clipped, escapeHtml } from './html-text';
import { reportStyle } from './report-style';

type Outcome = CaseReport['outcomes'][number];

/** How much of each foreign text the report shows: the file stays light enough to open with hundreds of cases. */
export const reportLimits = { promptChars: 20_000, answerChars: 50_000, argumentsChars: 4_000, resultChars: 2_000 };

/** An answer longer than this (characters or lines) is folded under its first line: the columns stay comparable. */
export const foldAnswer = { chars: 1_200, lines: 24 };

/**
 * An eval's report as one self-contained HTML file: the summary per candidate, then each case's prompt with every
 * candidate's answer, tool calls, grades and cost side by side (the recorded baseline first). No script, no request:
 * the styles are inline, every foreign text is escaped (./html-text.ts), and a Content-Security-Policy that allows
 * nothing but the inline styles stands behind the escaping, should anything ever slip through it.
 */
export function renderReport(report: EvalReport): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'; base-uri 'none'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Eval ${escapeHtml(report.evalId)}</title>`,
    `<style>${reportStyle}</style>`,
    '</head>',
    '<body>',
    `<h1>Eval ${escapeHtml(report.evalId)}</h1>`,
    `<p class="meta">started ${escapeHtml(report.startedAt)} · ${report.cases.length} cases · candidates: ${report.candidates.map(escapeHtml).join(', ')}</p>`,
    stoppedNotice(report),
    summaryTable(report),
    ...report.cases.map(caseSection),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function stoppedNotice(report: EvalReport): string {
  if (!report.stopped) return '';
  const { notRun, cut = [] } = report.stopped;
  const cutText =
    cut.length > 0
      ? ` It stopped ${cut.length} pairs mid-way, not scored: ${cut.map((pair) => `${escapeHtml(pair.case)} · ${escapeHtml(pair.candidate)} (${usd(pair.costUsd)})`).join(', ')}.`
      : '';
  return `<p class="warning" id="stopped">The money budget stopped this eval: ${notRun.length} cases were not run (${notRun.map(escapeHtml).join(', ')}).${cutText}</p>`;
}

function summaryTable(report: EvalReport): string {
  const repeated = report.summary.some((row) => row.repeats);
  const rows = report.summary.map(
    (row) =>
      `<tr><td>${escapeHtml(row.candidate)}</td><td class="number">${score(row.score)}</td>` +
      `<td class="number">${row.passed}</td><td class="number">${row.failed}</td>` +
      `<td class="number">${usd(row.costUsd)}</td><td class="number${row.worse > 0 ? ' fail' : ''}">${row.worse}</td>` +
      `${repeated ? `<td>${row.repeats ? repeatText(row.repeats) : '–'}</td>` : ''}</tr>`,
  );
  return [
    '<h2>Summary</h2>',
    '<table id="summary">',
    '<thead><tr><th>candidate</th><th class="number">score</th><th class="number">passed</th><th class="number">failed</th><th class="number">cost</th><th class="number">worse than baseline</th>' +
      `${repeated ? '<th>repeats (mean over cases)</th>' : ''}</tr></thead>`,
    `<tbody>${rows.join('')}</tbody>`,
    '</table>',
  ].join('\n');
}

function caseSection(caseReport: CaseReport, index: number): string {
  const { case: evalCase, outcomes } = caseReport;
  return [
    `<section class="case" id="case-${index}">`,
    `<h2>${escapeHtml(evalCase.id)} <span class="muted">${escapeHtml(sourceText(evalCase.source))}</span></h2>`,
    `<pre class="prompt">${escapeHtml(clipped(evalCase.prompt, reportLimits.promptChars))}</pre>`,
    ...(caseReport.repeats
      ? [
          `<ul class="repeats">${caseReport.repeats.map((stats) => `<li>${escapeHtml(stats.candidate)}: ${repeatText(stats)}</li>`).join('')}</ul>`,
        ]
      : []),
    // The column count is a number of ours; nothing foreign goes into a style.
    `<div class="outcomes" style="grid-template-columns: repeat(${Math.max(1, outcomes.length)}, minmax(0, 1fr))">`,
    ...outcomes.map((outcome) =>
      outcomeColumn(
        outcome,
        outcomes.find((entry) => entry.candidate === 'recorded'),
      ),
    ),
    '</div>',
    '</section>',
  ].join('\n');
}

function outcomeColumn(outcome: Outcome, recorded: Outcome | undefined): string {
  const tokens = `${outcome.usage.inputTokens} in / ${outcome.usage.outputTokens} out`;
  return [
    '<div class="outcome">',
    `<h3>${escapeHtml(outcome.candidate)}${outcome.repeat !== undefined ? ` <span class="muted">run ${outcome.repeat}</span>` : ''} <span class="${outcome.pass ? 'pass' : 'fail'}">${outcome.pass ? 'pass' : 'fail'}</span> <span class="score">${score(outcome.score)}</span></h3>`,
    `<p class="muted">${escapeHtml(outcome.status)} · ${outcome.iterations} iterations · ${tokens} · <span class="cost">${outcome.usage.costUsd === undefined ? 'cost unknown' : usd(outcome.usage.costUsd)}</span></p>`,
    ...(outcome.error ? [`<pre class="error fail">${escapeHtml(clipped(outcome.error, reportLimits.resultChars))}</pre>`] : []),
    answerBlock(outcome.answer),
    ...(recorded && recorded !== outcome ? [answerDiff(recorded.answer, outcome.answer)] : []),
    toolCallList(outcome.toolCalls),
    gradeTable(outcome.grades),
    '</div>',
  ].join('\n');
}

/** The answer; a long one folded (<details>) under its first line and its length. */
function answerBlock(answer: string): string {
  const block = `<pre class="answer">${escapeHtml(clipped(answer, reportLimits.answerChars))}</pre>`;
  if (answer.length <= foldAnswer.chars && answer.split('\n').length <= foldAnswer.lines) return block;
  const firstLine = clipped(answer.split('\n')[0], 120);
  return `<details class="fold"><summary>${escapeHtml(firstLine)} <span class="muted">(${answer.length} characters)</span></summary>${block}</details>`;
}

/** How the answer differs from the recorded one, line by line, folded: `-` recorded only, `+` this answer only. */
function answerDiff(recorded: string, answer: string): string {
  if (recorded === answer) return '<p class="muted diff">the same answer as recorded</p>';
  const lines = diffLines(clipped(recorded, reportLimits.answerChars), clipped(answer, reportLimits.answerChars));
  if (!lines) return '<p class="muted diff">too long to diff against the recorded answer</p>';
  const added = lines.filter((line) => line.kind === '+').length;
  const removed = lines.filter((line) => line.kind === '-').length;
  const rows = lines.map((line) => {
    const text = escapeHtml(`${line.kind} ${line.text}`);
    return line.kind === '+' ? `<ins>${text}</ins>` : line.kind === '-' ? `<del>${text}</del>` : `<span>${text}</span>`;
  });
  return `<details class="diff"><summary>diff against recorded <span class="muted">(+${added} −${removed} lines)</span></summary><pre class="diff">${rows.join('\n')}</pre></details>`;
}

function toolCallList(calls: ObservedToolCall[]): string {
  if (calls.length === 0) return '<p class="muted tool-calls">no tool calls</p>';
  const items = calls.map((call) => {
    const argumentsText = typeof call.arguments === 'string' ? call.arguments : (JSON.stringify(call.arguments) ?? '');
    const result =
      call.result === undefined
        ? ''
        : `<pre class="${call.isError ? 'fail' : ''}">${call.isError ? 'error: ' : ''}${escapeHtml(clipped(call.result, reportLimits.resultChars))}</pre>`;
    return `<li><code>${escapeHtml(call.name)}</code> <code>${escapeHtml(clipped(argumentsText, reportLimits.argumentsChars))}</code>${result}</li>`;
  });
  return `<ol class="tool-calls">${items.join('')}</ol>`;
}

function gradeTable(grades: GradeResult[]): string {
  if (grades.length === 0) return '<p class="muted">no grades</p>';
  const rows = grades.map(
    (grade) =>
      `<tr><td>${escapeHtml(grade.grader)}</td><td class="number">${score(grade.score)}</td>` +
      `<td class="${grade.pass ? 'pass' : 'fail'}">${grade.pass ? 'pass' : 'fail'}</td><td>${escapeHtml(grade.reason)}` +
      `${grade.usage?.costUsd !== undefined ? ` <span class="muted">(${usd(grade.usage.costUsd)})</span>` : ''}</td></tr>`,
  );
  return `<table class="grades"><thead><tr><th>grader</th><th class="number">score</th><th></th><th>reason</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** A candidate's repeated runs: `5 runs: mean 0.80 ± 0.40, pass@1 0.80, pass@5 1.00`. */
function repeatText(stats: RepeatStats): string {
  const last = stats.passAtK.length;
  return (
    `${stats.runs} runs: mean ${score(stats.mean)} ± ${score(stats.stdev)}` +
    (last > 0 ? `, pass@1 ${score(stats.passAtK[0])}${last > 1 ? `, pass@${last} ${score(stats.passAtK[last - 1])}` : ''}` : '')
  );
}

function sourceText(source: CaseReport['case']['source']): string {
  return source.kind === 'run'
    ? `run ${source.workflowId} (${source.runId}), message ${source.messageIndex}`
    : `${source.file}:${source.line}`;
}

function score(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : '–';
}

function usd(value: number): string {
  return Number.isFinite(value) ? `$${value.toFixed(value >= 1 ? 2 : value >= 0.01 ? 4 : 6)}` : '–';
}
