import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { defaultSearchLimits, searchWorkspace, type SearchLimits } from '../../tools/search-workspace';
import { toolInputRefusal } from '../support/tool-input-refusal';

let workspace: string;

// Costs re2js about two seconds per line of 4 KB (linear, but in the pattern's size too); no line matches.
const expensivePattern = '.{0,1000}.{0,1000}.{0,1000}.{0,1000}c$';
const expensiveLine = `${'abc'.repeat(1365)}d`;

beforeAll(async () => {
  workspace = await mkdtemp(path.join(os.tmpdir(), 'workspace-search-'));
  await mkdir(path.join(workspace, 'heavy'));
  await writeFile(path.join(workspace, 'heavy', 'lines.txt'), Array.from({ length: 20 }, () => expensiveLine).join('\n'));
  await mkdir(path.join(workspace, 'text'));
  await writeFile(path.join(workspace, 'text', 'long.txt'), `${'x'.repeat(5000)}needle\nneedle near the start`);
  await writeFile(path.join(workspace, 'text', 'big.txt'), `needle ${'y'.repeat(2000)}`);
  // Directories only: a walk through them matches no line, so a cancel can only land between two entries.
  await Promise.all(
    Array.from({ length: 300 }, (_, index) => mkdir(path.join(workspace, 'dirs', `d${index}`), { recursive: true })),
  );
});
afterAll(() => rm(workspace, { recursive: true, force: true }));

function search(
  pattern: string,
  where: string,
  limits: Partial<SearchLimits> = {},
  signal = new AbortController().signal,
): Promise<string> {
  return searchWorkspace(workspace, pattern, where, signal, { ...defaultSearchLimits, ...limits });
}

it('keeps the event loop turning while a line is matched, and stops at its time budget', async () => {
  // Matched on the worker's own thread, one such line would hold the event loop for about two seconds.
  let turns = 0;
  let searching = true;
  const turning = (async () => {
    while (searching) {
      await new Promise((resolve) => setImmediate(resolve));
      turns++;
    }
  })();
  const output = await search(expensivePattern, 'heavy', { timeBudgetMs: 1_000 });
  searching = false;
  await turning;
  expect(output).toBe(
    `no matches for /${expensivePattern}/\n[search stopped after 1 s: narrow the path or simplify the pattern]`,
  );
  expect(turns).toBeGreaterThan(100);
});

it('stops matching when the activity is cancelled', async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('cancelled by Temporal')), 200);
  await expect(search(expensivePattern, 'heavy', {}, controller.signal)).rejects.toThrow('cancelled by Temporal');
});

it('rejects a cancel that lands between two entries of the walk, never reporting what it found so far', async () => {
  const controller = new AbortController();
  const { signal } = controller;
  // Cancelled once the search listens for it, that is once its walk has begun (nothing else here waits on the signal).
  const listen = signal.addEventListener.bind(signal);
  signal.addEventListener = (...args: Parameters<AbortSignal['addEventListener']>) => {
    listen(...args);
    setImmediate(() => controller.abort(new Error('cancelled by Temporal')));
  };
  await expect(search('needle', 'dirs', {}, signal)).rejects.toThrow('cancelled by Temporal');
});

it('refuses syntax RE2 lacks, naming it', async () => {
  expect(await toolInputRefusal(search('(?=needle)', '.'))).toBe(
    'invalid regular expression (RE2 syntax): invalid or unsupported Perl syntax: `(?=`',
  );
  expect(await toolInputRefusal(search('(a)\\1', '.'))).toBe(
    'invalid regular expression (RE2 syntax): invalid escape sequence: `\\1`',
  );
});

it('searches long lines in their first characters only, and says so', async () => {
  expect(await search('needle', 'text/long.txt')).toBe(
    'text/long.txt:2: needle near the start\n[1 lines longer than 4096 characters were searched in their first 4096 only]',
  );
});

it('skips files over the size limit and stops at the byte and entry budgets, saying so', async () => {
  expect(await search('needle', 'text', { maxFileBytes: 1000 })).toBe(
    'no matches for /needle/\n[skipped: 2 files over the size limit]',
  );
  expect(await search('needle', 'text', { byteBudget: 1000 })).toBe(
    'no matches for /needle/\n[search stopped after reading 1000 bytes: narrow the path]',
  );
  // Shown lines are cut to 300 characters.
  expect(await search('needle', 'text', { entryBudget: 1 })).toBe(
    `text/big.txt:1: ${`needle ${'y'.repeat(2000)}`.slice(0, 300)}\n[search stopped after 1 directory entries: narrow the path]`,
  );
});
