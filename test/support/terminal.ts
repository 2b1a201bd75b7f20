import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A program in a real pseudo-terminal, read as a person sees it: tmux runs it
 * on a server of its own (a private socket), `type` sends keys, and `screen`
 * is what the terminal shows, after the terminal itself has interpreted every
 * byte (escape sequences, carriage returns, wide characters).
 */
export class Terminal {
  private constructor(private readonly socket: string) {}

  /** Starts `command` in a 160×50 terminal; `env` is the whole environment it gets. */
  static async start(command: string[], env: NodeJS.ProcessEnv): Promise<Terminal> {
    const terminal = new Terminal(`durable-agent-test-${randomUUID()}`);
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
          ...command,
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

  async close(): Promise<void> {
    await this.tmux('kill-server').catch(() => {});
  }

  private tmux(...args: string[]) {
    return run('tmux', ['-L', this.socket, ...args]);
  }
}
