import { loadAnthropic } from '../../providers/anthropic/call-anthropic';
import { loadOpenAI } from '../../providers/openai/client';

// The SDKs load on first use, once: an import() per model call went through the module loader each time
// (~0.5 ms of the worker's main thread per call, seen in the sessions benchmark's profile).
it.each([
  ['openai', loadOpenAI],
  ['anthropic', loadAnthropic],
])('loads the %s SDK once, however many calls ask for it', async (_name, load) => {
  const first = load();
  expect(load()).toBe(first);
  expect((await first).default).toEqual(expect.any(Function));
});
