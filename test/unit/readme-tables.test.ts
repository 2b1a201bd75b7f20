import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { exitCodes, statusExitCodes } from '../../cli/exit-codes';

// The tables of the docs are what users script against: every status a run can end with, every exit code, every
// variable the code reads. They drifted once (no `interrupted` row). This test reads both sides, the source and
// the docs (the README's front door points at them), so that neither can change without the other.

const root = path.join(__dirname, '..', '..');
const read = (page: string) => readFileSync(path.join(root, page), 'utf8');

/** The lines of `page`'s section under `heading` (up to the next heading of any level). */
function section(page: string, heading: string): string {
  const text = read(page);
  const start = text.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`${page} has no "${heading}" section`);
  const rest = text.slice(start + heading.length + 1);
  const end = rest.search(/^#{1,6} /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** The rows of the first Markdown table in `text`, as cells, header and separator left out. */
function tableRows(text: string): string[][] {
  const lines = text.split('\n').filter((line) => line.startsWith('|'));
  return lines.slice(2).map((line) =>
    line
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim()),
  );
}

/** The `backticked` words of a cell. */
const codeSpans = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]);

describe('docs/how-it-works.md "How a run ends", docs/cli.md "Exit codes"', () => {
  const rows = tableRows(section('docs/how-it-works.md', '## How a run ends'));

  it('has one row per status a run can end with, with the exit code the CLI gives it', () => {
    const documented = Object.fromEntries(rows.map(([status, , code]) => [codeSpans(status)[0], Number(code)]));
    expect(documented).toEqual(statusExitCodes);
  });

  it('lists each exit code the CLI gives, and no other', () => {
    const exitLine = read('docs/cli.md')
      .split('\n- ')
      .find((item) => item.startsWith('Exit codes:'));
    expect(exitLine).toBeDefined();
    const documented = [...exitLine!.matchAll(/`(\d+)`/g)].map((match) => Number(match[1]));
    expect(documented.sort((a, b) => a - b)).toEqual(Object.values(exitCodes).sort((a, b) => a - b));
  });

  it('matches every exit code a command returns as a number', () => {
    const sources = execFileSync('git', ['ls-files', 'client/*.ts', 'client/**/*.ts'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    const returned = new Set<number>();
    for (const file of sources) {
      const text = readFileSync(path.join(root, file), 'utf8');
      for (const match of text.matchAll(/\breturn (\d+);/g)) returned.add(Number(match[1]));
    }
    expect([...returned].filter((code) => !Object.values(exitCodes).includes(code as never))).toEqual([]);
  });
});

describe('docs/configuration.md "Environment variables"', () => {
  const rows = tableRows(section('docs/configuration.md', '## Environment variables'));
  const documented = rows.flatMap(([names]) => codeSpans(names).map((name) => name.replace(/=.*$/, '')));
  const isDocumented = (name: string) =>
    documented.some((entry) => (entry.endsWith('*') ? name.startsWith(entry.slice(0, -1)) : entry === name));

  // Read by the code, but not ours to document: the shell's, npm's and the XDG directories' own.
  const general = new Set(['HOME', 'PATH', 'INIT_CWD', 'NO_COLOR', 'XDG_CACHE_HOME', 'XDG_DATA_HOME']);

  /** Every variable name the shipped code reads: `env.NAME`, `env['NAME']`, `const { NAME } = env`, `'NAME'` looked up in a list. */
  function variablesRead(): Map<string, string> {
    const files = execFileSync('git', ['ls-files', '*.ts'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((file) => file && !/^(test|bench|examples)\//.test(file));
    const found = new Map<string, string>();
    for (const file of files) {
      const text = readFileSync(path.join(root, file), 'utf8');
      const names = [
        ...[...text.matchAll(/\benv(?:\.|\?\.|\[')([A-Z][A-Z0-9_]+)/g)].map((match) => match[1]),
        ...[...text.matchAll(/\{([^}]*)\}\s*=\s*(?:process\.)?env\b/g)].flatMap(
          (match) => match[1].match(/\b[A-Z][A-Z0-9_]{2,}\b/g) ?? [],
        ),
        // Names the code checks in a loop (`for (const variable of ['OTEL_…', …]) env[variable]`) or names in its errors.
        ...[...text.matchAll(/'((?:AGENT|OTEL|AWS|TEMPORAL|OPENAI|ANTHROPIC)_[A-Z0-9_]+)'/g)].map((match) => match[1]),
      ];
      for (const name of names) if (!found.has(name)) found.set(name, file);
    }
    return found;
  }

  it('documents every environment variable the code reads', () => {
    const undocumented = [...variablesRead()].filter(([name]) => !general.has(name) && !isDocumented(name));
    expect(undocumented.map(([name, file]) => `${name} (read in ${file})`)).toEqual([]);
  });

  it('documents no variable of ours that nothing reads any more', () => {
    const read = variablesRead();
    const stale = documented.filter((name) => /^AGENT_/.test(name) && !read.has(name));
    expect(stale).toEqual([]);
  });
});

// The folder tables live in docs/architecture.md (the library's layers, then what is outside it); README links there.
describe('docs/architecture.md folder tables', () => {
  const architecture = read('docs/architecture.md');
  const header = '| folder | what lives there |';
  const tables = architecture.split(header).slice(1);
  const rows = tables.flatMap((table) => tableRows(header + table.slice(0, table.indexOf('\n\n'))));
  const named = rows.flatMap(([folders]) => codeSpans(folders)).filter((name) => name.endsWith('/'));

  it('names every folder of the tree that holds code, and only folders that exist', () => {
    const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
    const topLevel = new Set(
      tracked.filter((file) => file.includes('/') && !file.startsWith('.')).map((file) => `${file.split('/')[0]}/`),
    );
    expect([...topLevel].filter((folder) => !named.includes(folder)).sort()).toEqual([]);
    const missing = named.filter((folder) => !tracked.some((file) => file.startsWith(folder)));
    expect(missing).toEqual([]);
    expect(named).toEqual(expect.arrayContaining(['core/', 'serve/', 'test/']));
  });
});
