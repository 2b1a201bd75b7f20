import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { renderReport } from '../../evals/report/render-report';
import type { CaseOutcome, EvalReport, GradeResult } from '../../core/eval-types';
import { launchBrowser, type Browser } from '../support/browser';

// Issue 32: the HTML report of an eval, opened in Chromium. Answers, tool calls and grader reasons are model and
// user text: a candidate that answers with markup must show as text, run nothing, and load nothing.

jest.setTimeout(120_000);

let browser: Browser | undefined;
let directory: string | undefined;
let listener: http.Server | undefined;
const requestsReceived: string[] = [];
afterAll(async () => {
  await browser?.close();
  listener?.closeAllConnections();
  await new Promise((resolve) => (listener ? listener.close(resolve) : resolve(undefined)));
  if (directory) await rm(directory, { recursive: true, force: true });
});

function outcome(
  candidate: string,
  fields: Partial<CaseOutcome> & { grades: GradeResult[]; score: number; pass: boolean },
): EvalReport['cases'][number]['outcomes'][number] {
  return {
    caseId: 'refund',
    candidate,
    workflowId: candidate === 'recorded' ? '' : `eval-7-refund-${candidate}`,
    answer: '',
    status: 'completed',
    toolCalls: [],
    usage: { inputTokens: 1200, outputTokens: 80, costUsd: 0.0042 },
    iterations: 2,
    ...fields,
  };
}

it('shows each candidate side by side, hostile markup as text, with no script run and no request made', async () => {
  listener = http.createServer((request, response) => {
    requestsReceived.push(request.url ?? '');
    response.end('');
  });
  await new Promise<void>((resolve) => listener!.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  // Markup that would run, or fetch, if any of it reached the page as markup.
  const hostileAnswer =
    `<script>window.pwned = 'script'; fetch('${base}/script')</script>` +
    `<img src="${base}/img.png" onerror="window.pwned = 'img'">Refunds take 30 days.`;
  const hostileArguments = { path: `"><svg onload="window.pwned='svg'"><link rel="stylesheet" href="${base}/css">` };
  const report: EvalReport = {
    evalId: 'eval-7',
    startedAt: '2026-11-28T13:00:00.000Z',
    candidates: ['recorded', 'cheap'],
    cases: [
      {
        case: {
          id: 'refund',
          source: { kind: 'dataset', file: 'cases.jsonl', line: 4 },
          prompt: 'How long do refunds take? <b>now</b>',
        },
        outcomes: [
          outcome('recorded', {
            answer: 'Refunds take 30 days, see policy.md.',
            toolCalls: [{ name: 'read_file', arguments: { path: 'policy.md' }, result: 'Refunds: 30 days.' }],
            grades: [{ grader: 'contains "30 days"', score: 1, pass: true, reason: 'the answer contains "30 days"' }],
            score: 1,
            pass: true,
          }),
          outcome('cheap', {
            answer: hostileAnswer,
            toolCalls: [
              { name: 'read_file', arguments: hostileArguments, result: `<iframe src="${base}/frame"></iframe>`, isError: true },
            ],
            usage: { inputTokens: 900, outputTokens: 60, costUsd: 0.0011 },
            grades: [
              { grader: 'contains "30 days"', score: 1, pass: true, reason: 'the answer contains "30 days"' },
              {
                grader: 'judge: Is it <em>grounded</em>?',
                score: 0.2,
                pass: false,
                reason: `<a href="${base}/click">cites nothing</a>`,
                usage: { inputTokens: 300, outputTokens: 20, costUsd: 0.0003 },
              },
            ],
            score: 0.6,
            pass: false,
          }),
        ],
      },
    ],
    summary: [
      { candidate: 'recorded', score: 1, passed: 1, failed: 0, costUsd: 0.0042, worse: 0 },
      { candidate: 'cheap', score: 0.6, passed: 0, failed: 1, costUsd: 0.0014, worse: 1 },
    ],
    stopped: { reason: 'budget', notRun: ['late-case'] },
  };
  directory = await mkdtemp(path.join(os.tmpdir(), 'eval-report-'));
  const file = path.join(directory, 'report.html');
  await writeFile(file, renderReport(report));

  browser = await launchBrowser();
  const { page } = browser;
  const requested: string[] = [];
  const refusedByPolicy: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
  });
  await page.goto(pathToFileURL(file).href);

  // The summary per candidate, as a reader sees it.
  expect(
    await page.locator('#summary tbody tr').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).innerText)),
  ).toEqual(['recorded\t1.00\t1\t0\t$0.004200\t0', 'cheap\t0.60\t0\t1\t$0.001400\t1']);
  expect(await page.locator('#stopped').innerText()).toContain('1 cases were not run (late-case)');

  // The case: its prompt, then both answers side by side (same row, baseline left).
  const outcomes = page.locator('#case-0 .outcome');
  expect(await page.locator('#case-0 .prompt').innerText()).toBe('How long do refunds take? <b>now</b>');
  expect(await outcomes.count()).toBe(2);
  const [left, right] = [await outcomes.nth(0).boundingBox(), await outcomes.nth(1).boundingBox()];
  expect(right!.y).toBe(left!.y);
  expect(right!.x).toBeGreaterThan(left!.x + left!.width - 1);
  expect(await outcomes.nth(0).locator('.answer').innerText()).toBe('Refunds take 30 days, see policy.md.');
  expect(await outcomes.nth(1).locator('.answer').innerText()).toBe(hostileAnswer);
  expect(await outcomes.nth(1).locator('h3').innerText()).toBe('cheap fail 0.60');
  expect(await outcomes.nth(1).locator('.cost').innerText()).toBe('$0.001100');
  expect(await outcomes.nth(1).locator('.tool-calls li').innerText()).toBe(
    `read_file ${JSON.stringify(hostileArguments)}\nerror: <iframe src="${base}/frame"></iframe>`,
  );
  expect(
    await outcomes
      .nth(1)
      .locator('.grades tbody tr')
      .evaluateAll((rows) => rows.map((row) => (row as HTMLElement).innerText)),
  ).toEqual([
    'contains "30 days"\t1.00\tpass\tthe answer contains "30 days"',
    `judge: Is it <em>grounded</em>?\t0.20\tfail\t<a href="${base}/click">cites nothing</a> ($0.000300)`,
  ]);

  // Nothing ran and nothing loaded: no element but ours, no script, no handler fired, no request past the file.
  expect(
    await page.evaluate(() => ({
      pwned: (window as unknown as { pwned?: string }).pwned,
      scripts: document.scripts.length,
      foreign: document.querySelectorAll('script, img, svg, iframe, link, a, b, em').length,
    })),
  ).toEqual({ pwned: undefined, scripts: 0, foreign: 0 });
  expect(requested).toEqual([pathToFileURL(file).href]);
  expect(requestsReceived).toEqual([]);
  // The escaping kept it out, not the policy behind it: the policy had nothing to refuse.
  expect(refusedByPolicy).toEqual([]);
  await browser.screenshot('eval-report');
});
