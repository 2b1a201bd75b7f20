import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { EvalCase } from '../../evals/types';
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

/** The cases of every source given, in the order given: runs (query, ids), history files, datasets, a cases file. */
export async function loadCases(_client: Client, flags: CaseSourceFlags): Promise<EvalCase[]> {
  const cases: EvalCase[] = [];
  if (flags.query !== undefined || flags.runs || flags.history || flags.dataset)
    throw new UsageError('cases from runs, history files and datasets come with evals/cases/, not on this build yet');
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
