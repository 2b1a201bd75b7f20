/**
 * Cuts text to at most `limit` characters and says so, so that the model knows
 * it saw only part of the output and no oversized payload reaches history.
 */
export function truncateOutput(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const marker = `\n[output truncated: showing ${limit} of ${text.length} characters]`;
  return text.slice(0, Math.max(0, limit - marker.length)) + marker;
}
