import { visible } from '../../core/visible-text';

// What the CLI escapes before a terminal shows model text (cli/terminal-text.ts): C0 and C1 controls (ESC, BEL, a lone
// carriage return…) and the bidi overrides and isolates, which make a page read in another order than it was written.
const commanding = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/gu;

/**
 * Text as HTML: every answer, prompt, tool argument, grader reason and name in a report is foreign (model output,
 * dataset lines, user code), so nothing reaches the page unescaped. Escaping `&<>"'` makes text safe in element
 * content and in quoted attribute values alike; the report puts foreign text nowhere else (no URLs, no scripts,
 * no styles). The characters that would reorder or hide what a reviewer reads are shown as escapes (`\u{202E}`),
 * as the CLI shows them; newlines and tabs stay, a CRLF is a line end.
 */
export function escapeHtml(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .replace(commanding, (character) => (character === '\n' || character === '\t' ? character : visible(character)))
    .replace(/[&<>"']/g, (char) => entities[char]);
}

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text cut to `max` characters, saying how much was left out: a report stays a file a browser opens at once. */
export function clipped(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n[… ${text.length - max} more characters]` : text;
}
