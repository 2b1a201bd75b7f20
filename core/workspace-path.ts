/**
 * A path argument as a person should read it before it runs: the file or directory it names, relative to the
 * workspace, with `.` and `..` applied. The tools apply them the same way, lexically, before they open anything
 * (tools/workspace.ts, workspaceComponents), so `docs/aaaa…/../../.bashrc` is shown as the `.bashrc` it writes,
 * not as 200 characters of `docs/aaaa…` and a cut. A path that leaves the workspace keeps its leading `..` or its
 * absolute form: the tool refuses it, and the person sees why.
 *
 * Pure string work with no Node built-ins: the workflow (the stream's tool input, activity summaries) and the model
 * activity (approval descriptions) both call it, and must agree.
 */

/** Longest path shown whole; a longer one loses characters from its middle, never its ends. */
export const maxShownPathChars = 160;

/** `requested` resolved against `workspace` (an absolute path) and shown relative to it; `.` for the workspace itself. */
export function workspaceRelativePath(requested: string, workspace?: string): string {
  const absolute = requested.startsWith('/');
  const parts = applyDots(requested.split('/'), absolute);
  if (absolute && workspace !== undefined) {
    const root = applyDots(workspace.split('/'), true);
    if (root.every((part, index) => parts[index] === part)) return parts.slice(root.length).join('/') || '.';
  }
  if (absolute) return `/${parts.join('/')}`;
  return parts.join('/') || '.';
}

/** The path as shown: resolved (workspaceRelativePath), then shortened in the middle if it is long. */
export function shownPath(requested: string, workspace?: string, limit = maxShownPathChars): string {
  return cutInTheMiddle(workspaceRelativePath(requested, workspace), limit);
}

/**
 * `text` within about `limit` characters, by taking characters out of its middle and saying how many: its start (the
 * top directory) and its end (the file) stay whole. Never splits a surrogate pair.
 */
export function cutInTheMiddle(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const marker = (count: number) => `…[${count} characters not shown]…`;
  const keep = Math.max(2, limit - marker(text.length).length);
  let head = Math.ceil(keep / 3);
  let tail = text.length - (keep - head);
  if (isHighSurrogate(text.charCodeAt(head - 1))) head--;
  if (isLowSurrogate(text.charCodeAt(tail))) tail++;
  return `${text.slice(0, head)}${marker(tail - head)}${text.slice(tail)}`;
}

/** Path segments with empty segments, `.` and `..` applied; an absolute path never climbs above `/`. */
function applyDots(segments: string[], absolute: boolean): string[] {
  const out: string[] = [];
  for (const segment of segments) {
    if (segment === '' || segment === '.') continue;
    if (segment !== '..') out.push(segment);
    else if (out.length > 0 && out.at(-1) !== '..') out.pop();
    else if (!absolute) out.push('..');
  }
  return out;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * A copy of a call's arguments with each path argument among `paths` shown as above (a string only; anything else is
 * left for the tool's own check to refuse), the path arguments first: a bound on what is shown (the stream's) then
 * spends itself on them before anything the model put ahead of them.
 */
export function withPathsShown(args: unknown, paths: readonly string[], workspace?: string): unknown {
  if (paths.length === 0 || args === null || typeof args !== 'object' || Array.isArray(args)) return args;
  const record = args as Record<string, unknown>;
  const first = paths.filter((name) => Object.hasOwn(record, name) && typeof record[name] === 'string');
  const entries: Array<[string, unknown]> = [
    ...first.map((name): [string, unknown] => [name, shownPath(record[name] as string, workspace)]),
    ...Object.keys(record)
      .filter((key) => !first.includes(key))
      .map((key): [string, unknown] => [key, record[key]]),
  ];
  // fromEntries defines each key as an own property: a `__proto__` key stays data.
  return Object.fromEntries(entries);
}
