import path from 'node:path';
import { AgentError } from '../core/errors';
import { packageRoot } from '../install/package-root';

/**
 * How the CLI is started, as the usage lines show it: the package's command where it runs compiled (an app that
 * installed the package), `npm run agent --` where it runs from this repository's TypeScript sources.
 */
export const programName = __filename.endsWith('.js') ? 'npx durable-agent' : 'npm run agent --';

/** The flags `run`, `chat` and `serve` share (cli/commands/agent-flags.ts's agentOptions). */
const agentFlags = `      --agent NAME             a registered agent (built-in or from AGENT_DEFINITIONS; see: agents)
      --model provider:model   openai:…, openai-responses:… or anthropic:… (default: the agent's, or $AGENT_MODEL or openai:gpt-4o-mini)
      --workspace DIR          directory the file tools may use (default: the current directory)
      --max-iterations N       model calls per message before it ends with a summary (default: 20)
      --max-tool-calls-per-reply N   tool calls of one model reply that run; the rest are answered "not run" (default: 64)
      --max-session-tokens N   end the run cleanly once input + output tokens exceed N
      --max-context-tokens N   summarise older turns once a model call's input exceeds N tokens
      --keep-recent-turns N    turns kept verbatim when summarising (default: 4)
      --max-cost-usd X         stop cleanly (status cost_budget) before a model call could take the spend past $X
      --approve-tools a,b      tools whose calls a person approves first (chat and serve: write_file unless given)
      --policy FILE            the run's approval policy (JSON: rules allow, ask or deny; docs/policy.md)
      --yes                    approve every tool call without asking
      --approval-timeout S     a call not approved within S seconds is not run (default: 3600)
      --tools a,b              tools to enable: names, mcp:<server>, mcp:* (default: the agent's;
                               without --agent, all built-in tools and every MCP tool: see tools)
      --system TEXT            system prompt
      --temperature T          sampling temperature, 0 to 2 (default: the agent's; the provider's)
      --max-output-tokens N    tokens the model may write per call (default: the agent's; the provider's)
      --thinking-budget N      Anthropic extended thinking: tokens the model may think with (at least 1024)
      --reasoning-effort E     OpenAI reasoning models: low, medium or high
      --prompt-cache C         prompt caching: off, 5m, 1h or 24h (default: on; Anthropic offers 5m/1h, OpenAI 5m/24h)
      --id WORKFLOW_ID         workflow id (default: agent-<time>-<random>)
      --tenant NAME            the run's tenant (Temporal fairness key, at most 64 bytes): on a server with fairness
                               on, backlogged runs are dispatched fairly across tenants (docs/production.md)
      --priority N             1 (first) to 5 (last); runs without one are 3
      --stream, --no-stream    print the answer as it is written (default: on a terminal, and not with --json);
                               a streamed run's text can be watched from elsewhere: see watch
      --batch                  every model call through the provider's batch API: half the price, answered within
                               24 hours, waited for on durable timers (run only; chat and serve refuse it)`;

/** agentFlags without the entries of these flags (an entry is its line and the continuation lines under it). */
function agentFlagsWithout(...flags: string[]): string {
  const entries: string[][] = [];
  for (const line of agentFlags.split('\n')) {
    if (/^\s+--/.test(line)) entries.push([line]);
    else entries.at(-1)?.push(line);
  }
  const dropped = (entry: string[]) => flags.some((flag) => new RegExp(`^\\s+${flag}[\\s,]`).test(entry[0]));
  return entries
    .filter((entry) => !dropped(entry))
    .map((entry) => entry.join('\n'))
    .join('\n');
}

/**
 * Each command's help: `summary` is its part of the overview (`agent help`); `flags`, when the overview shortens
 * them, is what `agent <command> --help` lists instead. Every command of cli/main.ts has an entry, and every flag
 * its parseArgs accepts is named in it (test/unit/cli-help.test.ts walks them all).
 */
interface CommandHelp {
  summary: string;
  flags?: string;
}

export const commandHelp: Record<string, CommandHelp> = {
  run: {
    summary: `run "<prompt>"         start an agent and follow it until it answers
${agentFlags}
      --file PATH              an image (PNG, JPEG, WebP, GIF) or file (PDF, text) sent with the prompt, by
                               reference (repeatable; docs/attachments.md)
      --json                   print one JSON object as the last line of stdout
      --detach                 start the run and exit without waiting`,
  },
  chat: {
    summary: `chat                   start a session and talk to it line by line (/end or Ctrl-D ends it)
      (the run options above, and) --idle-timeout SECONDS (default: 3600), --file PATH (with the first message)`,
    flags: `chat                   start a session and talk to it line by line (/end or Ctrl-D ends it)
      --idle-timeout SECONDS   end the session after this long without a message (default: 3600)
      --file PATH              an image or file sent with the first message (repeatable; docs/attachments.md)
${agentFlags}`,
  },
  serve: {
    summary: `serve                  the web chat: /api/chat (useChat), /api/ag-ui (AG-UI) and the chat page (docs/web.md)
      (the run options above, and) --port N (3000) --host H (127.0.0.1) --static DIR --principal-header NAME
      --proxy-secret-env NAME --trusted-proxy ADDR --idle-timeout SECONDS --allowed-origins URL[,URL]
      --allowed-hosts NAME[,NAME] --allow-unauthenticated --max-body-bytes N`,
    flags: `serve                  the web chat: /api/chat (useChat), /api/ag-ui (AG-UI) and the chat page (docs/web.md)
      --port N                 port to listen on (default: 3000)
      --host H                 address to listen on (default: 127.0.0.1)
      --static DIR             serve this directory as the page (default: the built chat page, dist/web-chat)
      --principal-header NAME  the header a proxy in front sets to the signed-in user (default: one user, "local")
      --proxy-secret-env NAME  believe that header only with the secret this variable holds, in X-Proxy-Secret
      --trusted-proxy ADDR[,ADDR]  believe that header only from these addresses or networks (10.0.0.0/24)
      --idle-timeout SECONDS   end a session after this long without a message (default: 3600)
      --allowed-origins URL[,URL]  other sites' pages that may call it (default: only its own page)
      --allowed-hosts NAME[,NAME]  names it answers to besides --host and loopback (a proxy's public name)
      --allow-unauthenticated  listen beyond loopback with no principal, or with one no proxy proves (else exit 2)
      --max-body-bytes N       largest request body, files as base64 included (default: 1048576; 413 above it)
${agentFlags}`,
  },
  mcp: {
    summary: `mcp                    the registered agents as MCP tools, over stdio or --http (docs/mcp.md): each call a
                         durable run; agent_result {runId} picks up an answer a client lost
      (the run options above, but --agent, --id and --stream, and) --agents a,b --http --port N (3001) --host H
      --principal-header NAME --proxy-secret-env NAME --trusted-proxy ADDR --allowed-origins URL[,URL]
      --allowed-hosts NAME[,NAME] --allow-unauthenticated --max-body-bytes N`,
    flags: `mcp                    the registered agents as MCP tools, over stdio or --http (docs/mcp.md): each call a
                         durable run; agent_result {runId} picks up an answer a client lost
      --agents a,b             the agents to offer (default: every registered agent; see: agents)
      --http                   serve Streamable HTTP at /mcp instead of stdio, with serve's rules (docs/web.md)
      --port N                 port to listen on (--http; default: 3001)
      --host H                 address to listen on (--http; default: 127.0.0.1)
      --principal-header NAME  the header a proxy in front sets to the signed-in user (default: one user, "local")
      --proxy-secret-env NAME  believe that header only with the secret this variable holds, in X-Proxy-Secret
      --trusted-proxy ADDR[,ADDR]  believe that header only from these addresses or networks (10.0.0.0/24)
      --allowed-origins URL[,URL]  other sites' pages that may call it (default: none)
      --allowed-hosts NAME[,NAME]  names it answers to besides --host and loopback (a proxy's public name)
      --allow-unauthenticated  listen beyond loopback with no principal, or with one no proxy proves (else exit 2)
      --max-body-bytes N       largest request body, files as base64 included (--http; default: 1048576; 413 above it)
      --yes                    approve every tool call without asking (else a call that needs approval is put to the
                               client's user by MCP elicitation, and refused when the client cannot ask)
${agentFlagsWithout('--agent', '--id', '--stream', '--yes')}`,
  },
  dev: {
    summary: `dev                    keep a local Temporal dev server, its Web UI and a worker running until Ctrl-C, so that
                         the runs of other terminals (run, chat, serve) and their Web UI links outlive those commands
      --port N                 the server's port (default: 7233)
      --ui-port N              the Web UI's port (default: 8233)`,
  },
  watch: {
    summary: `watch <workflow-id>    follow a run from anywhere: its text as it is written, its tool calls, until it ends
      --from OFFSET            start at this event offset (after a disconnect: the one after the last seen)
      --json                   one JSON event per line, each with its offset, then {"type":"run_end",…}`,
  },
  send: {
    summary: `send <workflow-id> "<message>"   send one message to a session; prints the reply   [--json]
                         [--file PATH: an image or file with it, repeatable]`,
  },
  steer: {
    summary: `steer <workflow-id> "<message>"  steer the turn in progress: it takes the message after its current step;
                         prints that turn's reply (with no turn in progress, an ordinary message)   [--json]
                         [--file PATH: an image or file with it, repeatable]`,
  },
  end: { summary: `end <workflow-id>      end a session once the messages sent are answered           [--json]` },
  show: {
    summary: `show <workflow-id>     print the conversation, its messages numbered for fork --at   [--json]
                         [--thinking: the model's thinking too, dimmed]`,
  },
  agents: { summary: `agents                 list the registered agents with their tools, subagents and handoffs   [--json]` },
  tools: {
    summary: `tools                  list the registered tools and those of the MCP servers in AGENT_MCP_CONFIG   [--json]`,
  },
  fork: {
    summary: `fork <workflow-id>     a new run from a run's conversation, up to message N; the source is never changed
      --at N  --id NEW_ID  --model provider:model  --agent NAME  --prompt "…"  --json`,
  },
  eval: {
    summary: `eval                   answer recorded conversations (or a dataset) with candidates, durably, and score them
      cases: --query Q | --runs ID,ID | --history FILE | --dataset FILE.jsonl | --cases FILE.json  [--every-message]
      --candidate 'NAME: model=…; instructions=…; tools=a,b; temperature=…'   --config FILE.json
      --grader contains:refund …  --judge RUBRIC --judge-model provider:model  --concurrency N  --budget-usd X
      --repeat N  --batch  --tools scratch|refuse  --json  --report FILE.html  --junit FILE.xml  --fail-under 0.9  --fail-on-worse
    eval show EVAL_ID      an eval's table, --json, --report and --junit again (a running one followed to its end)
    eval compare A B       two finished evals side by side, the cases both answered   (docs/evals.md)`,
    flags: `eval                   answer recorded conversations (or a dataset) with candidates, durably, and score them (docs/evals.md)
    eval show EVAL_ID        an eval started before (under --id, or the id it printed): its table, --json, --report and
                             --junit again, the gates too; a running eval is followed to its end. Starts nothing.
    eval compare A B         two finished evals side by side: the cases both answered, each candidate as NAME@EVAL_ID,
                             in the table, --json, --report and --junit
    Cases (one source or more):
      --query '<visibility query>'   recorded runs chosen by a visibility query (at most --limit, default 100)
      --limit N                at most N runs of --query
      --runs ID,ID             recorded runs by workflow id
      --history FILE           a history agent history --out saved (repeatable)
      --dataset FILE.jsonl     one case a line: an input and, optionally, expectations (repeatable)
      --cases FILE.json        cases as JSON (an array of EvalCase, as runEval takes them)
      --every-message          a case per user message of a session (default: its last message only)
    Candidates (at least one):
      --candidate 'NAME: key=value; …'   an agent with overrides; keys: agent, model, instructions, instructions-file,
                               tools (a,b), temperature, max-output-tokens, thinking-budget, reasoning-effort,
                               prompt-cache; --candidate NAME alone is the agent as it is (repeatable); without
                               tools=, a candidate is offered the tools the recording's run was given
      --agent NAME             the agent of candidates that name none (default: default)
      --config FILE.json       {"candidates":[…],"graders":[…],"concurrency":N,"repeat":N,"budgetUsd":X,"batch":true,
                               "tools":"refuse"}
    Graders (of every case; a dataset line may bring its own):
      --grader G               contains:TEXT, equals:TEXT, regex:PATTERN, output-schema, tools-only:a,b, max-cost-usd:X,
                               max-iterations:N, max-tool-calls:N, custom:NAME, or a grader's JSON (repeatable)
      --judge RUBRIC           an LLM judge with this rubric (repeatable), on --judge-model provider:model
    Running:
      --workspace DIR          the workspace the cases were recorded in: never written (default: the current directory)
      --tools scratch|refuse   a tool call no recorded result answers: runs on a scratch copy of the workspace
                               (default), or is refused; other tools than the workspace's are refused either way
      --concurrency N          child runs at once (default: 4)
      --repeat N               each candidate answers each case N times: per case the mean, spread and pass@k
      --budget-usd X           stop starting runs once the spend plus the next run's worst case would pass $X; a pair
                               it stops mid-way is reported not run, never scored
      --batch                  candidate and judge model calls through the providers' batch APIs (half the price)
      --id EVAL_ID             the eval's workflow id (default: eval-<time>-<random>); runs are <id>/<case>/<candidate>;
                               an id in use is refused (exit 2): agent eval show EVAL_ID gives that eval's report
    Output:
      --json                   print the report as one JSON line (stdout) instead of the table
      --report FILE.html       write the self-contained HTML report
      --junit FILE.xml         write JUnit XML for CI: a testsuite per candidate, a testcase per case (skipped: not run)
      --fail-under X           exit 4 when a candidate's mean score is under X (0 to 1)
      --fail-on-worse          exit 4 when a candidate scored lower than the recording on any case`,
  },
  history: { summary: `history <workflow-id>  save the event history as JSON   --out FILE` },
  replay: {
    summary: `replay                 replay runs against this checkout's workflow code before a deploy; exit 1 if any fails
      --query '<visibility query>'   the runs to replay (default: every open agentWorkflow run and the last --limit closed)
      --limit N                at most N closed runs, or N runs of --query (default: 100)
      --file FILE              replay a history saved by history --out instead (repeatable)
      --workflows PATH         your worker's workflows module (its workflowsPath): bundled instead of the agent
                               workflow alone, and the default selection lists the runs of every workflow it exports
      --allow-empty            pass when no run matches (by default an empty selection fails: the gate checked nothing)
      --json                   print {"runs":[{workflowId,runId,ok,error?}],"failed":N}`,
  },
  cancel: { summary: `cancel <workflow-id>   cancel a run; its conversation stays queryable` },
  schedule: {
    summary: `schedule create (--cron EXPR [--timezone ZONE] | --at TIME) "<prompt>"   start runs later, on a Temporal Schedule
                         (docs/schedules.md); each run is an ordinary one (agent show); --json on every subcommand
      --cron EXPR              whenever this cron expression matches (5 fields; @every 30s, @daily ...)
      --timezone ZONE          the IANA time zone the cron is read in (default: UTC)
      --at TIME                once, at this ISO 8601 time with its offset (2026-12-03T09:00:00Z)
      --overlap POLICY         a firing while the last run goes on: skip (default), buffer-one, buffer-all,
                               cancel-other, terminate-other, allow-all
      --catchup-window D       a firing missed while the server was down still runs within D (default: 10 minutes)
      --id SCHEDULE_ID         the schedule's id (default: schedule-<time>-<random>)
      (and the run options above, but --stream)
    schedule list | describe <id> | pause <id> [--note TEXT] | unpause <id> | trigger <id> | delete <id>`,
    flags: `schedule create (--cron EXPR [--timezone ZONE] | --at TIME) "<prompt>"   start runs later, on a Temporal Schedule
      --cron EXPR              whenever this cron expression matches (5 fields; @every 30s, @daily ...)
      --timezone ZONE          the IANA time zone the cron is read in (default: UTC)
      --at TIME                once, at this ISO 8601 time with its offset (2026-12-03T09:00:00Z)
      --overlap POLICY         a firing while the last run goes on: skip (default), buffer-one, buffer-all,
                               cancel-other, terminate-other, allow-all
      --catchup-window D       a firing missed while the server was down still runs within D (default: 10 minutes)
      --id SCHEDULE_ID         the schedule's id (default: schedule-<time>-<random>)
      --json                   print the schedule as one JSON object (every subcommand: one JSON line)
${agentFlagsWithout('--id', '--stream')}
    schedule list                       the agent schedules, with their next run
    schedule describe <id>              one schedule: its prompt, next runs and the runs it started
    schedule pause <id> [--note TEXT]   stop firing until unpaused; unpause <id>
    schedule trigger <id>               fire now (the overlap policy still applies)
    schedule delete <id>                delete it; the runs it started stay (agent show)`,
  },
  approve: {
    summary: `approve <workflow-id> [--call CALL_ID] [--json]                 let a tool call waiting for approval run (all waiting, without --call)
      --args JSON              the named call runs with these arguments instead of the model's (docs/policy.md)
      --edit                   edit the named call's arguments in $VISUAL or $EDITOR first`,
  },
  deny: { summary: `deny <workflow-id> [--call CALL_ID] [--reason TEXT] [--json]    do not run it; the model is told why` },
  interrupt: {
    summary: `interrupt <workflow-id>                                end the current turn at once; the session goes on`,
  },
  signal: {
    summary: `signal <workflow-id> <event> [--json PAYLOAD] [--id ID]      deliver an event to the run's wait_for_event call
                         on that name (docs/time.md); refused with the reason when nothing waits for it. --id: a retry
                         with the same id is delivered once. Prints {"workflowId","event","callId"}`,
  },
  init: {
    summary: `init [DIR]             make a project in DIR (default: here; new or empty): an agent with a tool, a client script,
                         tests with durable-agent/testing, and the scripts worker, agent and test`,
  },
  'setup-test-server': {
    summary: `setup-test-server      fetch Temporal's time-skipping test server from Maven Central into the cache (once; Java
                         and Maven), where durable-agent/testing finds it: tests then run offline; prints its path`,
  },
  worker: { summary: `worker                 run a worker: polls the task queue (AGENT_TASK_QUEUE) until Ctrl-C` },
  'codec-server': {
    summary: `codec-server           decrypt payloads for the Web UI and the temporal CLI (needs AGENT_ENCRYPTION_KEYS)
      --port N                 port to listen on (default: 8888; 0 picks a free one)
      --host ADDR              address to listen on (default: 127.0.0.1)
      --cors-origin URL[,URL]  Web UI origins allowed to call it
                               (default: $AGENT_CODEC_CORS_ORIGINS or http://localhost:8233,http://127.0.0.1:8233)
      --auth-token TOKEN       require the token: Authorization: Bearer TOKEN, or Basic with TOKEN as password
                               (default: $AGENT_CODEC_AUTH_TOKEN; required unless --host is a loopback address)
      --allow-no-token         listen on a non-loopback --host without a token (something in front checks callers)
      --max-request-bytes N    refuse larger bodies with 413, answered at once, nothing kept (default: 8388608)
      --max-concurrent-requests N  requests converted at once (default: 4)
      --max-queued-requests N  requests waiting for those places; more get 503 + Retry-After (default: 64)`,
  },
};

const exitCodeText = `Exit codes: 0 answered, 1 failed or cancelled, 2 bad usage or input, 3 ended without a full answer
(max_iterations, truncated, refused, empty, token_budget, cost_budget, invalid_output), 4 an eval's gate failed,
5 a guardrail stopped the message or its answer (guardrail_tripped).`;

/** Where the guides the help names (docs/web.md, …) are: the package ships docs/ beside dist/. */
const guidesText = `Guides (docs/…): ${path.join(packageRoot, 'docs')}`;

/** The overview: every command with its flags (`agent help`, `agent --help`, and after a mistake without a command). */
export const helpText = `Usage: ${programName} <command> [options]

Commands:
${Object.values(commandHelp)
  .map(({ summary }) => `  ${summary}`)
  .join('\n')}
  help [command]         this text, or one command's

Every command answers --help (or -h) with its own flags.

${exitCodeText}
${guidesText}`;

/** One command's usage and every flag it takes (`agent run --help`); undefined for a name that is no command. */
export function commandHelpText(name: string): string | undefined {
  const help = Object.hasOwn(commandHelp, name) ? commandHelp[name] : undefined;
  if (!help) return undefined;
  return `Usage: ${programName} ${help.flags ?? help.summary}\n\n${exitCodeText}\n${guidesText}`;
}

/** Whether the arguments ask for help: `--help` or `-h` before a `--` (after it, they are a prompt's words). */
export function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

/**
 * Node's parseArgs errors in words for this CLI. Node's own unknown-option message ends in an unclosed quote
 * (`as in '-- "--x"`) and does not say where the flags are listed; the others are kept as Node words them.
 */
export function parseArgsMessage(error: Error & { code: string }, command: string | undefined): string {
  const seeHelp = command ? `${programName} ${command} --help` : `${programName} help`;
  const unknown = /^Unknown option '([^']*)'/.exec(error.message);
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) {
    const option = unknown[1];
    return `Unknown option '${option}'${command ? ` for ${command}` : ''} (its flags: ${seeHelp}); a prompt or message that starts with '-' goes after '--', as in: -- ${JSON.stringify(option)}`;
  }
  return `${error.message} (see: ${seeHelp})`;
}

/** A mistake in how the CLI was called: exit code 2 with the usage text. */
export class UsageError extends AgentError {}
