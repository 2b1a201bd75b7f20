import { cliCommandLine, cliEnvironment } from '../support/cli';
import { Terminal } from '../support/terminal';
import { waitFor } from '../support/wait-for';

// `agent serve --help` as a person types it (issue 31): in a real pseudo-terminal (tmux), read off the screen. It
// exited 2 with Node's "Unknown option '--help'" (its closing quote missing); it shows serve's flags and exits 0.

let terminal: Terminal | undefined;
afterEach(() => terminal?.close());

it('shows serve --help with its flags on the screen, and exits 0', async () => {
  // The shell prints the exit status once the command is done, on the same screen.
  const command = ['sh', '-c', '"$0" "$@"; echo "exit status $?"; exec sleep 600', ...cliCommandLine(['serve', '--help'])];
  terminal = await Terminal.start(command, cliEnvironment({ TEMPORAL_ADDRESS: '127.0.0.1:1' }));
  const screen = await waitFor('the help and the exit status', async () => {
    const shown = await terminal!.screen();
    return shown.includes('exit status') && shown;
  });
  expect(screen).toContain('exit status 0');
  expect(screen).toMatch(/^Usage: npm run agent -- serve /m);
  for (const flag of ['--port N', '--host H', '--static DIR', '--principal-header NAME', '--idle-timeout SECONDS', '--model'])
    expect(screen).toContain(flag);
  expect(screen).not.toContain('Unknown option');
});
