import type { ToolCall } from './messages';
import { parseToolArguments } from './tool-arguments';
import { visible } from './visible-text';
import { cutInTheMiddle } from './workspace-path';

/**
 * What a person approves: a description of a tool call built from the arguments
 * that will really run, never from text the model chose to show. The same text
 * is shown everywhere a decision is asked for (the CLI prompt, `agent show`, the
 * status query and `--json`, the run's stream, the Web UI's details), so it is
 * built once, when the call asks for approval, and carried with the request.
 *
 * A tool may describe its own calls (`defineTool`'s `describeForApproval`): the
 * built-in file tools put the path first, then the size and a preview of the
 * content. Any other call is described by its arguments as canonical JSON (keys
 * sorted, so their order cannot put a harmless value first). A path argument
 * (tools/path-argument.ts) is shown as the path the tool will open: resolved
 * against the workspace, `..` applied (core/workspace-path.ts). Either way every
 * character that could hide or fake text is escaped, and anything clipped says
 * so (a preview also says where the whole call can be read).
 */

/** How a tool describes one call for approval: a one-line headline, and optionally a preview shown as lines below it. */
export interface ApprovalText {
  headline: string;
  preview?: string;
}

/** A described call: `summary` is the headline cut to one short line, `description` the whole text. */
export interface ApprovalDescription {
  summary: string;
  description: string;
}

const maxHeadlineChars = 200;
const maxSummaryChars = 80;
const maxPreviewChars = 600;
const maxPreviewLines = 12;
// Canonical JSON this short fits on the headline; longer goes into the preview.
const maxInlineJsonChars = 120;

/**
 * Describes `call` for a person. `described` is the tool's own description of the parsed, validated arguments (or
 * argumentsText's, of arguments whose paths are shown resolved), when there is one; `run` is the workflow id whose
 * conversation holds the whole call. A headline too long to show is shortened in its middle, never at its end: a
 * headline puts what the call acts on first, and a path's end is the file it names.
 */
export function describeCall(call: ToolCall, described: ApprovalText | undefined, run: string): ApprovalDescription {
  const text = described ?? genericText(call);
  const seeAll = `\`agent show ${visible(run)}\` prints the whole call`;
  const firstLine = cutInTheMiddle(visible(text.headline), maxHeadlineChars);
  const lines = [firstLine];
  if (text.preview !== undefined && text.preview !== '') lines.push(...previewLines(text.preview, seeAll));
  return { summary: cutInTheMiddle(firstLine, maxSummaryChars), description: lines.join('\n') };
}

/** A call's description from its arguments alone: its name and canonical JSON. */
function genericText(call: ToolCall): ApprovalText {
  const parsed = parseToolArguments(call.arguments);
  if (!parsed.ok) return { headline: `${call.name} (arguments that ${parsed.problem})`, preview: call.arguments };
  return argumentsText(call.name, parsed.value);
}

/** A call described by its parsed arguments as canonical JSON: on the headline when short, else as the preview. */
export function argumentsText(name: string, args: unknown): ApprovalText {
  const json = canonicalJson(args);
  return json.length <= maxInlineJsonChars ? { headline: `${name} ${json}` } : { headline: name, preview: json };
}

/** JSON with every object's keys sorted: the same value always reads the same, whatever order the model wrote. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function previewLines(preview: string, seeAll: string): string[] {
  const shown = clipped(preview, maxPreviewChars);
  const lines = shown.text.split('\n');
  const kept = lines.slice(0, maxPreviewLines);
  const hiddenLines = lines.length - kept.length;
  const hiddenChars = shown.clipped + lines.slice(maxPreviewLines).join('\n').length + (hiddenLines > 0 ? 1 : 0);
  const out = kept.map((line) => `  │ ${visible(line)}`);
  if (hiddenChars > 0) out.push(`  … ${hiddenChars} more characters not shown; ${seeAll}`);
  return out;
}

/** Text cut to `limit` characters (never inside a surrogate pair), and how many were cut. */
function clipped(text: string, limit: number): { text: string; clipped: number } {
  if (text.length <= limit) return { text, clipped: 0 };
  let end = limit;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return { text: text.slice(0, end), clipped: text.length - end };
}
