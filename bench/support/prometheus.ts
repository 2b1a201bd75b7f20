/** Sums of Prometheus counters or gauges by metric name, from a /metrics endpoint's text format (labels summed over). */
export async function scrapeMetrics(url: string): Promise<Map<string, number>> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const totals = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const value = Number(match[3]);
    if (Number.isFinite(value)) totals.set(match[1], (totals.get(match[1]) ?? 0) + value);
  }
  return totals;
}
