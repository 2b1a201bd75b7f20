/**
 * A module (or modules) imported on first use, and only once. Loading late keeps
 * start-up short; loading once matters as much: an import() of a module already
 * loaded still goes through Node's module loader (and, under tsx, its hooks
 * thread), about 0.5 ms each time, which on a model call per message added up
 * (bench/NOTES.md, sessions).
 */
export function loadOnce<Loaded>(load: () => Promise<Loaded>): () => Promise<Loaded> {
  let loading: Promise<Loaded> | undefined;
  return () => (loading ??= load());
}
