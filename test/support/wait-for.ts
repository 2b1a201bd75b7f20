/**
 * Polls `probe` until it returns something other than undefined or false, and
 * returns that. Fault tests wait on what they can observe (a request arriving,
 * a log line, a history event) instead of sleeping for a guessed time.
 * The default bound is generous on purpose: a fact that arrives takes only as long as it takes, and on a busy
 * machine (CI's two cores, or several suites at once) spawning a CLI or bundling workflows can take most of a minute.
 */
export async function waitFor<T>(
  description: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 90_000, intervalMs = 100 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${description}${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
