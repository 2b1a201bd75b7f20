import type { BenchEnvironment } from './environment';
import type { TargetRow } from './format';
import type { Session } from './session';

export interface BenchContext {
  environment: BenchEnvironment;
  /** Smaller sizes, for trying the suite out. */
  quick: boolean;
  /** A session of `iterations` zero-latency tool turns, run once and shared (overhead measures it, replay replays it). */
  loopSession(iterations: number): Promise<Session>;
}

export interface BenchReport {
  /** Markdown blocks: tables of the measurements, notes. */
  details: string[];
  /** The targets this benchmark decides. */
  targets: TargetRow[];
}

export interface Benchmark {
  /** What `npm run bench -- <name>` selects. */
  name: string;
  title: string;
  run(context: BenchContext): Promise<BenchReport>;
}
