import { spawnCli } from './cli';
import { waitFor } from './wait-for';

export interface CodecServerProcess {
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  /** The server's own process (node running the CLI): its memory is in /proc/<pid>/status. */
  pid: number;
  /** What the command printed on stderr so far (refused requests, failures). */
  stderr(): string;
  /**
   * Waits until stderr holds `text` (at least `times` times) and returns it. The server's log line travels on
   * its own pipe, so it may arrive after the HTTP answer it describes: assert on it only through this.
   */
  printed(text: string, times?: number): Promise<string>;
  /** SIGTERM (as an operator or a container runtime stops it) or SIGINT (Ctrl-C); resolves with the exit code. */
  stop(signal?: 'SIGTERM' | 'SIGINT'): Promise<number | null>;
}

/** Runs `agent codec-server --port 0 …` in a child process and waits for the address it listens on. */
export async function startCodecServer(args: string[], env: NodeJS.ProcessEnv): Promise<CodecServerProcess> {
  const child = spawnCli(['codec-server', '--port', '0', ...args], env, { stdin: 'ignore' });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await waitFor(
    'the codec server to listen',
    () => {
      if (child.exitCode !== null) throw new Error(`codec-server exited with ${child.exitCode}: ${stderr.trim()}`);
      return /listening on (http:\/\/[^\s]+)/.exec(stderr)?.[1];
    },
    { timeoutMs: 30_000 },
  ).catch((error: Error) => {
    child.kill('SIGKILL');
    throw error;
  });
  return {
    url,
    pid: child.pid!,
    stderr: () => stderr,
    printed: (text, times = 1) =>
      waitFor(`the codec server to print "${text}" ${times} time(s)`, () => stderr.split(text).length - 1 >= times && stderr, {
        timeoutMs: 10_000,
        intervalMs: 20,
      }),
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
