/**
 * Text as HTML: every answer, prompt, tool argument, grader reason and name in a report is foreign (model output,
 * dataset lines, user code), so nothing reaches the page unescaped. Escaping `&<>"'` makes text safe in element
 * content and in quoted attribute values alike; the report puts foreign text nowhere else (no URLs, no scripts,
 * no styles).
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => entities[char]);
}

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text cut to `max` characters, saying how much was left out: a report stays a file a browser opens at once. */
export function clipped(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n[… ${text.length - max} more characters]` : text;
}
