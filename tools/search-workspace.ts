import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { LineMatcher, MatcherStopped } from './line-matcher';
import type { DeniedPaths } from '../core/approval-policy';
import { OpenedWorkspace, WorkspaceRefusal, type OpenedInWorkspace, type RefusalReason } from './open-in-workspace';

/** Bounds of one search: a model-chosen pattern over a model-chosen tree must end soon, whatever both are. */
export interface SearchLimits {
  maxMatches: number;
  /** Larger files are skipped (and counted). */
  maxFileBytes: number;
  /** Longer lines are searched in their first this many characters only (and counted). */
  maxSearchedLineChars: number;
  /** A match is shown cut to this many characters. */
  maxShownLineChars: number;
  /** The whole search, walking included; then it stops and says so, with the matches found so far. */
  timeBudgetMs: number;
  /** Bytes read in all, and directory entries looked at in all; then it stops and says so. */
  byteBudget: number;
  entryBudget: number;
  /** Deeper directories are not entered (each level holds a descriptor open). */
  maxDepth: number;
  /** A pattern still compiling after this long is refused. */
  compileTimeoutMs: number;
}

export const defaultSearchLimits: SearchLimits = {
  maxMatches: 200,
  maxFileBytes: 1024 * 1024,
  maxSearchedLineChars: 4096,
  maxShownLineChars: 300,
  // Well inside search_files's 60 s activity timeout, so the model gets partial results, not a timed-out attempt.
  timeBudgetMs: 20_000,
  byteBudget: 64 * 1024 * 1024,
  entryBudget: 50_000,
  maxDepth: 64,
  compileTimeoutMs: 5_000,
};

const skippedDirectories = new Set(['.git', 'node_modules']);

const skipDescriptions: Record<RefusalReason | 'too-large' | 'too-deep' | 'linked-directory', string> = {
  outside: 'symlinks pointing outside the workspace',
  denied: 'paths the approval policy refuses',
  'special-file': 'FIFOs, sockets or devices',
  'hard-link': 'files with more than one hard link',
  'too-large': 'files over the size limit',
  'too-deep': 'directories nested too deep',
  'linked-directory': 'symlinked directories (not followed)',
  missing: 'entries that vanished during the search',
  'not-a-directory': 'unreadable entries',
  'is-a-directory': 'symlinked directories (not followed)',
  other: 'unreadable entries',
};

type StopReason = 'matches' | 'time' | 'bytes' | 'entries' | 'cancelled';

/**
 * Searches the workspace (or `requested` inside it) for lines matching `pattern` (RE2 syntax), returning
 * "file:line: text" lines and bracketed notes on what was cut, skipped or left unsearched. Every file and directory
 * is opened the confined way (./open-in-workspace.ts); matching runs in a thread (./line-matcher.ts); the search
 * awaits I/O or the thread for every file, so other runs on the worker keep going throughout.
 */
export async function searchWorkspace(
  workspace: string,
  pattern: string,
  requested: string | undefined,
  signal: AbortSignal,
  limits: SearchLimits = defaultSearchLimits,
  denied?: readonly DeniedPaths[],
): Promise<string> {
  const matcher = await LineMatcher.start(pattern, limits.compileTimeoutMs, signal);
  const opened = await OpenedWorkspace.open(workspace, undefined, denied).catch(async (error: unknown) => {
    await matcher.stop();
    throw error;
  });
  const search = new Search(opened, matcher, limits);
  const timer = setTimeout(() => search.stop('time'), limits.timeBudgetMs);
  const onAbort = () => search.stop('cancelled');
  signal.addEventListener('abort', onAbort);
  try {
    signal.throwIfAborted();
    const start = await opened.open(requested ?? '.', 'entry');
    // Matches are named under the path the model gave, not where a symlink in it led.
    const shown =
      requested === undefined || path.isAbsolute(requested)
        ? start.relative
        : path.posix.normalize(requested).replace(/(.)\/$/, '$1');
    await search.entry(start, shown, 0);
  } catch (error) {
    signal.throwIfAborted();
    if (!(error instanceof MatcherStopped && search.stopped)) throw error;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    await Promise.all([matcher.stop(), opened.close()]);
  }
  // A cancel that landed between two entries ends the walk without an error; it is still a cancel, never a report.
  signal.throwIfAborted();
  return search.report(pattern);
}

class Search {
  readonly matches: string[] = [];
  stopped?: StopReason;
  private readonly skipped = new Map<string, number>();
  private cutLines = 0;
  private bytesRead = 0;
  private entriesSeen = 0;

  constructor(
    private readonly workspace: OpenedWorkspace,
    private readonly matcher: LineMatcher,
    private readonly limits: SearchLimits,
  ) {}

  stop(reason: StopReason): void {
    this.stopped ??= reason;
    // A line being matched is stopped mid-way; the walk sees `stopped` at its next entry.
    if (reason === 'time' || reason === 'cancelled') void this.matcher.stop();
  }

  /** Searches an opened file, or walks an opened directory; closes it. `shown` is its path as the output names it. */
  async entry(opened: OpenedInWorkspace, shown: string, depth: number): Promise<void> {
    try {
      if (opened.info.isDirectory()) await this.directory(opened, shown, depth);
      else await this.file(opened, shown);
    } finally {
      await opened.handle.close();
    }
  }

  private async directory(directory: OpenedInWorkspace, shown: string, depth: number): Promise<void> {
    if (depth >= this.limits.maxDepth) return this.skip('too-deep');
    const entries = await readdir(directory.pathOfHandle, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (this.stopped) return;
      if (++this.entriesSeen > this.limits.entryBudget) return this.stop('entries');
      if (entry.isDirectory() && skippedDirectories.has(entry.name)) continue;
      const child = shown === '.' ? entry.name : `${shown}/${entry.name}`;
      const opened = await this.openEntry(directory, entry.name, child, entry.isSymbolicLink());
      if (opened) await this.entry(opened, child, depth + 1);
    }
  }

  /** A symlink is followed to a file inside the workspace, never to a directory (a link to ".." would loop). */
  private async openEntry(
    directory: OpenedInWorkspace,
    name: string,
    shown: string,
    symlink: boolean,
  ): Promise<OpenedInWorkspace | undefined> {
    try {
      if (symlink) return await this.workspace.open(shown, 'file');
      return await this.workspace.openChild(directory, name);
    } catch (error) {
      if (!(error instanceof WorkspaceRefusal)) throw error;
      this.skip(symlink && error.reason === 'is-a-directory' ? 'linked-directory' : error.reason);
      return undefined;
    }
  }

  private async file(file: OpenedInWorkspace, shown: string): Promise<void> {
    if (file.info.size > this.limits.maxFileBytes) return this.skip('too-large');
    if (this.bytesRead + file.info.size > this.limits.byteBudget) return this.stop('bytes');
    const buffer = Buffer.alloc(file.info.size);
    const { bytesRead } = await file.handle.read(buffer, 0, buffer.length, 0);
    this.bytesRead += bytesRead;
    const lines = buffer.subarray(0, bytesRead).toString('utf8').split('\n');
    const searched = lines.map((line) => {
      if (line.length <= this.limits.maxSearchedLineChars) return line;
      this.cutLines++;
      return line.slice(0, this.limits.maxSearchedLineChars);
    });
    const remaining = this.limits.maxMatches - this.matches.length;
    const found = await this.matcher.match(searched, remaining + 1);
    for (const index of found.slice(0, remaining)) {
      this.matches.push(`${shown}:${index + 1}: ${lines[index].slice(0, this.limits.maxShownLineChars)}`);
    }
    if (found.length > remaining) this.stop('matches');
  }

  private skip(reason: keyof typeof skipDescriptions): void {
    const description = skipDescriptions[reason];
    this.skipped.set(description, (this.skipped.get(description) ?? 0) + 1);
  }

  report(pattern: string): string {
    const lines = this.matches.length > 0 ? [...this.matches] : [`no matches for /${pattern}/`];
    const { limits } = this;
    switch (this.stopped) {
      case 'matches':
        lines.push(`[stopped after ${limits.maxMatches} matches]`);
        break;
      case 'time':
        lines.push(`[search stopped after ${limits.timeBudgetMs / 1000} s: narrow the path or simplify the pattern]`);
        break;
      case 'bytes':
        lines.push(`[search stopped after reading ${limits.byteBudget} bytes: narrow the path]`);
        break;
      case 'entries':
        lines.push(`[search stopped after ${limits.entryBudget} directory entries: narrow the path]`);
        break;
      case 'cancelled': // never reported: searchWorkspace throws the cancel instead
      case undefined:
        break;
      default: {
        const _exhaustive: never = this.stopped;
        throw new Error(`unknown stop reason ${String(_exhaustive)}`);
      }
    }
    if (this.cutLines > 0) {
      lines.push(
        `[${this.cutLines} lines longer than ${limits.maxSearchedLineChars} characters were searched in their first ${limits.maxSearchedLineChars} only]`,
      );
    }
    if (this.skipped.size > 0) {
      lines.push(`[skipped: ${[...this.skipped].map(([description, count]) => `${count} ${description}`).join(', ')}]`);
    }
    return lines.join('\n');
  }
}
