import type { EvalReport } from '../../evals/types';

/** The self-contained HTML report (evals/graders/'s renderReport); until it is on this build, the report as JSON in a page. */
export async function renderEvalReport(report: EvalReport): Promise<string> {
  const json = JSON.stringify(report, null, 2).replace(/</g, '\\u003c');
  return `<!doctype html><meta charset="utf-8"><title>eval ${report.evalId}</title><pre>${json.replace(/&/g, '&amp;')}</pre>\n`;
}
