// `npm run agent -- <command>`: start agents and inspect their runs. See client/usage.ts.
import { agentsCommand } from './commands/agents';
import { cancelCommand } from './commands/cancel';
import { approveCommand, denyCommand, interruptCommand } from './commands/decide';
import { forkCommand } from './commands/fork';
import { codecServerCommand } from './commands/codec-server';
import { historyCommand } from './commands/history';
import { consoleOutput, failureMessage, type Output } from './commands/output';
import { runCommand } from './commands/run';
import { chatCommand } from './commands/chat';
import { endCommand, sendCommand } from './commands/session';
import { showCommand } from './commands/show';
import { toolsCommand } from './commands/tools';
import { watchCommand } from './commands/watch';
import { InvalidInputError } from './start-agent';
import { usage, UsageError } from './usage';
import { timingMark } from '../telemetry/startup-timing';

const commands: Record<string, (argv: string[], output: Output) => Promise<number>> = {
  run: runCommand,
  agents: agentsCommand,
  tools: toolsCommand,
  fork: forkCommand,
  approve: approveCommand,
  deny: denyCommand,
  interrupt: interruptCommand,
  show: showCommand,
  history: historyCommand,
  cancel: cancelCommand,
  chat: (argv, output) => chatCommand(argv, output),
  send: sendCommand,
  end: endCommand,
  watch: watchCommand,
  'codec-server': codecServerCommand,
};

export async function main(argv: string[], output: Output = consoleOutput): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    output.info(usage);
    return name ? 0 : 2;
  }
  const command = commands[name];
  try {
    if (!command) throw new UsageError(`unknown command "${name}"`);
    return await command(rest, output);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      output.error(`error: ${(error as Error).message}\n\n${usage}`);
      return 2;
    }
    if (error instanceof InvalidInputError) {
      output.error(`error: ${error.message}`);
      return 2;
    }
    output.error(`error: ${failureMessage(error)}`);
    return 1;
  }
}

function isParseArgsError(error: unknown): boolean {
  return typeof (error as { code?: unknown })?.code === 'string' && (error as { code: string }).code.startsWith('ERR_PARSE_ARGS');
}

if (require.main === module) {
  timingMark('modules loaded');
  // Into a pipe, stdout is written asynchronously: exiting at once would cut a long answer
  // (a 2 MB `show --json`) short. An empty write calls back once everything before it is out.
  main(process.argv.slice(2)).then((code) => process.stdout.write('', () => process.stderr.write('', () => process.exit(code))));
}
