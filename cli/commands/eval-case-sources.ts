import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { casesFromDataset } from '../../evals/cases/dataset';
import { casesFromHistoryFiles, casesFromRuns } from '../../evals/cases/from-runs';
import type { EvalCase } from '../../core/eval-types';
import { UsageError } from '../help';
import { invocationDirectory } from '../output';

export interface CaseSourceFlags {
  query?: string;
  runs?: string[];
  history?: string[];
  dataset?: string[];
  cases?: string;
  everyMessage: boolean;
  limit?: number;
}

/**
 * The cases of every source given, in the order given: runs (query, ids), history files, datasets, a cases file
 * (evals/cases/ reads them). Two sources may name the same run: its cases then come twice, which runEval refuses
 * (two cases with one id) before anything starts.
 */
export async function loadCases(client: Client, flags: CaseSourceFlags): Promise<EvalCase[]> {
  const cases: EvalCase[] = [];
  const resolve = (file: string) => path.resolve(invocationDirectory(), file);
  const recorded = { everyMessage: flags.everyMessage };
  if (flags.query !== undefined || flags.runs)
    cases.push(
      ...(await casesFromRuns(client, {
        ...recorded,
        ...(flags.runs && { workflowIds: flags.runs }),
        ...(flags.query !== undefined && { query: flags.query }),
        ...(flags.limit !== undefined && { limit: flags.limit }),
      })),
    );
  if (flags.history) cases.push(...(await casesFromHistoryFiles(flags.history.map(resolve), recorded)));
  for (const file of flags.dataset ?? [])
    cases.push(
      ...(await casesFromDataset(resolve(file)).catch((error: Error) => {
        throw new UsageError(`--dataset: ${error.message}`);
      })),
    );
  if (flags.cases) cases.push(...(await readCasesFile(flags.cases)));
  return cases;
}

/** `--cases FILE`: cases as JSON (an array of EvalCase), as a library call or an earlier export wrote them. */
async function readCasesFile(file: string): Promise<EvalCase[]> {
  const text = await readFile(path.resolve(invocationDirectory(), file), 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`--cases: cannot read ${file}: ${error.code ?? error.message}`);
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--cases ${file}: not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new UsageError(`--cases ${file}: not a JSON array of cases`);
  return parsed as EvalCase[];
}
