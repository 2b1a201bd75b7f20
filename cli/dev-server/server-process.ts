import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ReadyOptions {
  /** What readiness means, for the error: "its readiness probe on http://…". */
  what: string;
  timeoutMs?: number;
  /** How often `ready` is asked. */
  intervalMs?: number;
}

/**
 * A server the project runs as a child process (the embedded Temporal dev server, MinIO, the OpenTelemetry
 * Collector, the tests' own dev servers): the tail of its stderr for error messages, waiting until it is ready,
 * and one way to stop it (SIGTERM, SIGKILL after a grace period, then wait for the exit).
 */
export class ServerProcess {
  private stderr = '';
  private exited = false;
  private readonly exit: Promise<void>;

  constructor(
    private readonly child: ChildProcess,
    /** How errors name it: "MinIO", "the OpenTelemetry Collector". */
    readonly name: string,
    private readonly stopGraceMs = 5_000,
  ) {
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-8000)));
    this.exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    void this.exit.then(() => (this.exited = true));
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return !this.exited;
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    this.child.kill('SIGTERM');
    const killer = setTimeout(() => this.child.kill('SIGKILL'), this.stopGraceMs);
    await this.exit;
    clearTimeout(killer);
  }

  /** SIGKILL, as a crash would end it, and wait for the exit. */
  async kill(): Promise<void> {
    if (this.exited) return;
    this.child.kill('SIGKILL');
    await this.exit;
  }

  /**
   * Polls `ready` until it holds. A server that exits first, or is not ready within the timeout (it is then
   * killed), fails with what it wrote to stderr.
   */
  async waitUntilReady(
    ready: () => Promise<boolean>,
    { what, timeoutMs = 30_000, intervalMs = 100 }: ReadyOptions,
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await ready())) {
      if (this.exited) throw new Error(`${this.name} exited before it was ready (${what}): ${this.stderr.trim()}`);
      if (Date.now() > deadline) {
        await this.kill();
        throw new Error(`${this.name} did not become ready within ${timeoutMs / 1000} s (${what}): ${this.stderr.trim()}`);
      }
      await sleep(intervalMs);
    }
  }
}
