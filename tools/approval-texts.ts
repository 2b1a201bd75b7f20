import type { ApprovalText } from '../core/approval-description';

/**
 * How the built-in file tools show a call to a person asked to approve it: what
 * the call acts on first (the path, quoted so that spaces and look-alikes show),
 * then what it would do to it.
 */

export function describeWrite({ path, content }: { path: string; content: string }): ApprovalText {
  const bytes = Buffer.byteLength(content, 'utf8');
  // A last line without its newline still counts; the newline that ends a file adds no line of its own.
  const body = content.endsWith('\n') ? content.slice(0, -1) : content;
  const lines = content === '' ? 0 : body.split('\n').length;
  return {
    headline: `write_file ${JSON.stringify(path)} (${bytes} bytes, ${lines} line${lines === 1 ? '' : 's'})`,
    preview: body,
  };
}

export function describeRead({ path }: { path: string }): ApprovalText {
  return { headline: `read_file ${JSON.stringify(path)}` };
}

export function describeList({ path }: { path: string }): ApprovalText {
  return { headline: `list_directory ${JSON.stringify(path)}` };
}

export function describeSearch({ pattern, path }: { pattern: string; path?: string }): ApprovalText {
  return { headline: `search_files ${JSON.stringify(path ?? '.')} for ${JSON.stringify(pattern)}` };
}
