#!/usr/bin/env node
// `durable-agent <command>` (the package's bin, this file compiled) or `npm run agent -- <command>` in the repository:
// start agents and inspect their runs. See cli/help.ts.
// This module loads little on purpose: a command's modules load when it runs, and for a command that starts runs,
// only after the embedded server (when one is needed) has been spawned, so the two overlap (bench/NOTES.md, first run).
import type { Output } from './output';
import { prestartEmbeddedServer, releasePrestartedServer } from './dev-server/embedded-server';
import { asksForHelp, commandHelpText, helpText, parseArgsMessage, UsageError } from './help';
import { packageRoot } from '../install/package-root';
import { checkOneTemporalCopy } from '../install/temporal-copies';
import { timingMark } from '../telemetry/startup-timing';
import { loadConnectionSettings } from '../worker/settings';

type Command = (argv: string[], output: Output) => Promise<number>;

const commands: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./commands/run')).runCommand,
  agents: async () => (await import('./commands/agents')).agentsCommand,
  tools: async () => (await import('./commands/tools')).toolsCommand,
  fork: async () => (await import('./commands/fork')).forkCommand,
  eval: async () => (await import('./commands/eval')).evalCommand,
  approve: async () => (await import('./commands/decide')).approveCommand,
  deny: async () => (await import('./commands/decide')).denyCommand,
  interrupt: async () => (await import('./commands/decide')).interruptCommand,
  signal: async () => (await import('./commands/signal')).signalCommand,
  show: async () => (await import('./commands/show')).showCommand,
  history: async () => (await import('./commands/history')).historyCommand,
  replay: async () => (await import('./commands/replay')).replayCommand,
  cancel: async () => (await import('./commands/cancel')).cancelCommand,
  schedule: async () => (await import('./commands/schedule')).scheduleCommand,
  chat: async () => (await import('./commands/chat')).chatCommand,
  serve: async () => (await import('./commands/serve')).serveCommand,
  mcp: async () => (await import('./commands/mcp')).mcpCommand,
  send: async () => (await import('./commands/session')).sendCommand,
  steer: async () => (await import('./commands/session')).steerCommand,
  end: async () => (await import('./commands/session')).endCommand,
  watch: async () => (await import('./commands/watch')).watchCommand,
  'codec-server': async () => (await import('./commands/codec-server')).codecServerCommand,
  dev: async () => (await import('./commands/dev')).devCommand,
  worker: async () => (await import('./commands/worker')).workerCommand,
  init: async () => (await import('./commands/init')).initCommand,
  'setup-test-server': async () => (await import('./commands/setup-test-server')).setupTestServerCommand,
};

/** Every command the CLI knows (each answers --help: test/unit/cli-help.test.ts). */
export const commandNames: readonly string[] = Object.keys(commands);

/** The commands that start runs, which a first-time user types first. */
const startsRuns = new Set(['run', 'chat']);

export async function main(argv: string[], given?: Output): Promise<number> {
  const [name, ...rest] = argv;
  const wantsHelp = asksForHelp(rest);
  if (startsRuns.has(name) && !wantsHelp) await prestart(given);
  const output = given ?? (await import('./output')).consoleOutput;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    // Help that was asked for is the command's result (stdout); without a command it is a usage mistake (stderr).
    if (!name) output.error(helpText);
    else output.result((name === 'help' && rest[0] && commandHelpText(rest[0])) || helpText);
    return name ? 0 : 2;
  }
  // Own keys only: `agent constructor` is no command (commands[name] would be Object's constructor).
  const load = Object.hasOwn(commands, name) ? commands[name] : undefined;
  // Answered here, for every command alike, before it loads or connects to anything.
  if (load && wantsHelp) {
    output.result(commandHelpText(name) ?? helpText);
    return 0;
  }
  try {
    if (!load) throw new UsageError(`unknown command "${name}"`);
    // Before a command loads Temporal's packages: an app with two copies of one fails here with the overrides that
    // fix it, not in protobufjs. Not init, which loads none, and writes those overrides into the project it makes,
    // nor setup-test-server, which loads none either.
    if (name !== 'init' && name !== 'setup-test-server') checkOneTemporalCopy(packageRoot);
    const command = await load();
    timingMark('command loaded');
    return await command(rest, output);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      const message = isParseArgsError(error) ? parseArgsMessage(error, load ? name : undefined) : (error as Error).message;
      output.error(`error: ${message}\n\n${(load ? commandHelpText(name) : undefined) ?? helpText}`);
      return 2;
    }
    const { InvalidInputError } = await import('../client/start-agent');
    const { AttachmentRefusedError } = await import('../client/attachment-input');
    const { AttachmentNotAcceptedError } = await import('../core/errors');
    // Nothing was started or sent: a mistake in the command's input, like a bad flag.
    if (
      error instanceof InvalidInputError ||
      error instanceof AttachmentRefusedError ||
      error instanceof AttachmentNotAcceptedError
    ) {
      output.error(`error: ${error.message}`);
      return 2;
    }
    const { failureMessage } = await import('../client/failure-message');
    output.error(`error: ${failureMessage(error)}`);
    return 1;
  } finally {
    // A command that ended before it connected (bad arguments, say) leaves no server behind.
    await releasePrestartedServer();
  }
}

/** Spawns the embedded server now if the command will need one; trouble with the settings is the command's to report. */
async function prestart(given: Output | undefined): Promise<void> {
  try {
    const log = given?.info ?? ((line: string) => process.stderr.write(`${line}\n`));
    await prestartEmbeddedServer(loadConnectionSettings().addressConfigured, log);
  } catch {
    // connect() loads the settings again and reports what is wrong with them.
  }
}

function isParseArgsError(error: unknown): error is Error & { code: string } {
  return typeof (error as { code?: unknown })?.code === 'string' && (error as { code: string }).code.startsWith('ERR_PARSE_ARGS');
}

if (require.main === module) {
  timingMark('modules loaded');
  // Into a pipe, stdout is written asynchronously: exiting at once would cut a long answer
  // (a 2 MB `show --json`) short. An empty write calls back once everything before it is out.
  main(process.argv.slice(2)).then((code) => process.stdout.write('', () => process.stderr.write('', () => process.exit(code))));
}
