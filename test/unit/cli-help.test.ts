import util from 'node:util';
import { commandNames, main } from '../../cli/main';
import { capturedOutput } from '../support/captured-output';

// `agent <command> --help` for every command cli/main.ts registers: exit 0, its usage on stdout, and every flag its
// parseArgs really accepts named there. The flags are learnt from the command itself (parseArgs watched while the
// command parses an unknown flag), so a flag added without help, or a command added without help, fails here.

const addressBefore = process.env.TEMPORAL_ADDRESS;
beforeAll(() => {
  // An address that nothing serves: `run` and `chat` start no embedded server for a mistake, and nothing connects.
  process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';
});
afterAll(() => {
  if (addressBefore === undefined) delete process.env.TEMPORAL_ADDRESS;
  else process.env.TEMPORAL_ADDRESS = addressBefore;
});

/** The long flags `command` accepts, read from its own parseArgs call. */
async function acceptedFlags(command: string): Promise<string[]> {
  const parseArgs = jest.spyOn(util, 'parseArgs');
  try {
    const code = await main([command, '--no-such-flag'], capturedOutput());
    expect(code).toBe(2);
    expect(parseArgs).toHaveBeenCalled();
    return parseArgs.mock.calls.flatMap(([config]) => Object.keys(config?.options ?? {}).map((name) => `--${name}`));
  } finally {
    parseArgs.mockRestore();
  }
}

it('registers the commands it is meant to, dev among them', () => {
  expect(commandNames).toEqual(expect.arrayContaining(['run', 'chat', 'serve', 'watch', 'dev', 'codec-server']));
});

describe.each(commandNames.map((name) => [name]))('agent %s', (command) => {
  it('answers --help and -h with its usage and every flag it accepts, exit 0', async () => {
    const flags = await acceptedFlags(command);
    for (const asked of ['--help', '-h']) {
      const output = capturedOutput();
      expect(await main([command, asked], output)).toBe(0);
      expect(output.stderr).toBe('');
      expect(output.stdout).toMatch(new RegExp(`^Usage: .*\\b${command}\\b`));
      const missing = flags.filter((flag) => !new RegExp(`${flag}(?![\\w-])`).test(output.stdout));
      expect(missing).toEqual([]);
    }
  });
});

it('names the unknown option with a closed quote and where the flags are', async () => {
  const output = capturedOutput();
  expect(await main(['serve', '--prot', '3000'], output)).toBe(2);
  const [firstLine] = output.stderr.split('\n');
  expect(firstLine).toBe(
    `error: Unknown option '--prot' for serve (its flags: npm run agent -- serve --help); a prompt or message that starts with '-' goes after '--', as in: -- "--prot"`,
  );
  // The command's own flags follow, not the overview of every command.
  expect(output.stderr).toContain('--principal-header NAME');
  expect(output.stderr).not.toContain('codec-server');
});

it('takes --help after -- as a prompt, not as a request for help', async () => {
  const output = capturedOutput();
  // `run -- --help` is a run whose prompt is "--help": it gets as far as connecting (to nothing, here).
  const code = await main(['run', '--json', '--id', 'x', '--no-stream', '--max-iterations', 'lots', '--', '--help'], output);
  expect(code).toBe(2);
  expect(output.stderr).toContain('--max-iterations must be a whole number');
});

it('answers help <command> with that command alone, and help with every command', async () => {
  const one = capturedOutput();
  expect(await main(['help', 'watch'], one)).toBe(0);
  expect(one.stdout).toContain('--from OFFSET');
  expect(one.stdout).not.toContain('codec-server');
  const all = capturedOutput();
  expect(await main(['help'], all)).toBe(0);
  for (const command of commandNames) expect(all.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
});

it('refuses a name that only an object has, such as constructor', async () => {
  const output = capturedOutput();
  expect(await main(['constructor', '--help'], output)).toBe(2);
  expect(output.stderr).toContain('unknown command "constructor"');
});
