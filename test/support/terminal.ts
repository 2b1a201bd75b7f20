import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A program in a real pseudo-terminal, read as a person sees it: tmux runs it
 * on a server of its own (a private socket), `type` sends keys, and `screen`
 * is what the terminal shows, after the terminal itself has interpreted every
 * byte (escape sequences, carriage returns, wide characters).
 */
export class Terminal {
  private constructor(
    private readonly socket: string,
    private readonly statusFile: string,
  ) {}

  /**
   * Starts `command` in a 160×50 terminal; `env` is the whole environment it gets. With `exitStatus`, a shell runs it
   * and writes its exit status to a file (exitStatus() reads it): under load tmux once kept a pane whose program had
   * exited without marking it dead, so "Pane is dead" on the screen is no proof either way. The shell's trap lets it
   * write the status after a Ctrl-C; the program gets SIGINT as it would alone (a caught signal is reset on exec).
   */
  static async start(command: string[], env: NodeJS.ProcessEnv, options: { exitStatus?: boolean } = {}): Promise<Terminal> {
    const socket = `durable-agent-test-${randomUUID()}`;
    const terminal = new Terminal(socket, path.join(os.tmpdir(), `${socket}.status`));
    const program = options.exitStatus
      ? ['/bin/sh', '-c', `trap : INT; "$@"; echo $? > '${terminal.statusFile}'`, 'sh', ...command]
      : command;
    await new Promise<void>((resolve, reject) => {
      const started = spawn(
        'tmux',
        [
          '-L',
          terminal.socket,
          '-f',
          '/dev/null',
          'new-session',
          '-d',
          '-c',
          process.cwd(),
          '-x',
          '160',
          '-y',
          '50',
          '--',
          ...program,
        ],
        {
          env: { ...env, TERM: 'xterm-256color' },
          stdio: 'ignore',
        },
      );
      started.on('error', reject);
      started.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tmux new-session exited ${code}`))));
    });
    // Keep the pane after the program exits, so its last screen can still be read.
    await terminal.tmux('set-option', '-g', 'remain-on-exit', 'on');
    return terminal;
  }

  /** The visible screen and its scrollback, one line per terminal row, trailing blanks trimmed. */
  async screen(): Promise<string> {
    const { stdout } = await this.tmux('capture-pane', '-p', '-J', '-S', '-1000');
    return stdout.replace(/\s+$/, '');
  }

  /** Types `text` and presses Enter. */
  async typeLine(text: string): Promise<void> {
    await this.tmux('send-keys', '-l', text);
    await this.tmux('send-keys', 'Enter');
  }

  /** The program's exit status once it has exited (a terminal started with `exitStatus`), else undefined. */
  async exitStatus(): Promise<number | undefined> {
    const written = await readFile(this.statusFile, 'utf8').catch(() => '');
    return /^\d+\n$/.test(written) ? Number(written) : undefined;
  }

  async close(): Promise<void> {
    await this.tmux('kill-server').catch(() => {});
    await rm(this.statusFile, { force: true });
  }

  private tmux(...args: string[]) {
    return run('tmux', ['-L', this.socket, ...args]);
  }
}
