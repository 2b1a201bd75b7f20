import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A helper server the project runs as a child process (MinIO, the OpenTelemetry Collector): the tail of its
 * stderr for error messages, and one way to stop it (SIGTERM, SIGKILL after 5 s, then wait for the exit).
 */
export class ServerProcess {
  private stderr = '';
  private exited = false;
  private readonly exit: Promise<void>;

  constructor(
    private readonly child: ChildProcess,
    /** How errors name it: "MinIO", "the OpenTelemetry Collector". */
    readonly name: string,
  ) {
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-4000)));
    this.exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    void this.exit.then(() => (this.exited = true));
  }

  get pid(): number {
    return this.child.pid!;
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    this.child.kill('SIGTERM');
    const killer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await this.exit;
    clearTimeout(killer);
  }

  /**
   * Polls `ready` every 100 ms. A server that exits first, or is not ready within the timeout (then stopped),
   * fails with what it wrote to stderr.
   */
  async waitUntilReady(ready: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await ready())) {
      if (this.exited) throw new Error(`${this.name} exited before it was ready: ${this.stderr.trim()}`);
      if (Date.now() > deadline) {
        await this.stop();
        throw new Error(`${this.name} did not become ready (${what}): ${this.stderr.trim()}`);
      }
      await sleep(100);
    }
  }
}
