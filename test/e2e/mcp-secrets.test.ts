import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Payload } from '@temporalio/common';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { CollectorProcess } from '../support/otel-collector/collector-process';
import { freePort } from '../../cli/dev-server/free-port';
import { EncryptionCodec } from '../../storage/encryption-codec';
import { encryptedEncoding } from '../../storage/encryption-codec';
import { parseEncryptionKeys } from '../../storage/encryption-keys';
import { AgentPlugin, workflowsPath } from '../../worker/agent-plugin';
import { lastJsonLine, runCli, type CliResult } from '../support/cli';
import { newKeyEntry } from '../support/encryption';
import { startTestCollector } from '../support/exported-spans';
import { openaiReply } from '../support/fake-model-server';
import { startHttpMcpServer, stdioServerEntry, type HttpMcpServer } from '../support/mcp-test-server';
import { encodingOf, fetchRawHistory } from '../support/raw-history';
import { filesUnder } from '../support/object-store';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { quietBundlerLogger } from '../support/quiet-bundler-logger';

// Secrets in the MCP config (through ${VAR} substitution from the environment: in a URL's path, host, userinfo and
// query, in a stdio server's arguments and env) must reach no history, transcript, span or CLI output, on the
// success path and on every failure path: a refused connection, an unknown host, a 401 and a 404 whose bodies echo
// the URL, credentials fetch refuses to send, and stdio servers that print their whole environment to stderr.

const bed = useTestBed();

// Every canary starts with the same marker, so one search finds any of them; the host lower-cases, so searches ignore case.
const marker = `zq${randomBytes(3).toString('hex')}canary`;
const canary = (what: string) => `${marker}-${what}-${randomBytes(4).toString('hex')}`;
const secrets = {
  CANARY_PATH: canary('path'),
  CANARY_QUERY: canary('query'),
  CANARY_USER: canary('user'),
  CANARY_PASSWORD: canary('password'),
  CANARY_HOST: canary('host'),
  CANARY_ARG: canary('arg'),
  CANARY_ENV: canary('env'),
};

const keyEntry = newKeyEntry('k1');
let collector: CollectorProcess;
let remote: HttpMcpServer;
let echo404: http.Server;
let configFile: string;
let transcriptDir: string;
let payloadDir: string;
/** A workflow bundle with the OpenTelemetry workflow interceptors, which a CLI that traces needs (as in test/telemetry). */
let tracedBundle: string;
let bundlePlugin: AgentPlugin;

/** An HTTP server that answers everything 404 and quotes the URL it was asked for, as many servers do. */
async function startNotFoundServer(): Promise<http.Server> {
  const server = http.createServer((request, response) =>
    response.writeHead(404, { 'content-type': 'text/plain' }).end(`nothing at ${request.url}`),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

beforeAll(async () => {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'mcp-secrets-'));
  collector = await startTestCollector(path.join(directory, 'spans.jsonl'));
  bundlePlugin = new AgentPlugin({
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_SERVICE_NAME: 'mcp-secrets-bundle' },
    workspaceRoot: os.tmpdir(),
  });
  const bundle = await bundleWorkflowCode({ workflowsPath, plugins: [bundlePlugin], logger: quietBundlerLogger });
  tracedBundle = path.join(directory, 'traced-workflow-bundle.js');
  await writeFile(tracedBundle, bundle.code);
  remote = await startHttpMcpServer(0, { refuseToolCalls: true });
  echo404 = await startNotFoundServer();
  transcriptDir = await mkdtemp(path.join(os.tmpdir(), 'mcp-secrets-transcripts-'));
  payloadDir = await mkdtemp(path.join(os.tmpdir(), 'mcp-secrets-payloads-'));
  const closedPort = await freePort();
  const stdio = stdioServerEntry();
  const remoteUrl = new URL(remote.url);
  configFile = path.join(directory, 'mcp.json');
  await writeFile(
    configFile,
    JSON.stringify({
      mcpServers: {
        // Listed and called: its arguments and env hold secrets, and it prints its environment to stderr.
        calc: {
          command: stdio.command,
          args: [...stdio.args, '--stderr-env', '--tag=${CANARY_ARG}'],
          env: { CALC_TOKEN: '${CANARY_ENV}' },
        },
        // Listed, but answers every tool call 401, echoing the URL (path and query) in the body.
        remote: { url: `${remoteUrl.origin}/mcp/\${CANARY_PATH}?key=\${CANARY_QUERY}` },
        // Fetch refuses a URL with credentials, quoting the whole URL in its error.
        locked: { url: `http://\${CANARY_USER}:\${CANARY_PASSWORD}@127.0.0.1:${closedPort}/mcp` },
        gone: { url: `http://127.0.0.1:${closedPort}/mcp/\${CANARY_PATH}` },
        nowhere: { url: 'http://${CANARY_HOST}.invalid/mcp' },
        missing: {
          url: `http://127.0.0.1:${(echo404.address() as AddressInfo).port}/wrong/\${CANARY_PATH}?key=\${CANARY_QUERY}`,
        },
        // Prints its environment and exits before it answers.
        broken: {
          command: process.execPath,
          args: ['-e', 'console.error(JSON.stringify(process.env)); process.exit(3)', '${CANARY_ARG}'],
          env: { LEAK: '${CANARY_ENV}' },
        },
      },
    }),
  );
});
afterAll(async () => {
  await remote?.close();
  await new Promise((resolve) => echo404?.close(resolve));
  await bundlePlugin?.tracing?.flush();
  await collector?.stop();
});

const cliEnv = (taskQueue: string): NodeJS.ProcessEnv => ({
  ...bed.server.providerEnv,
  ...secrets,
  AGENT_MCP_CONFIG: configFile,
  AGENT_TASK_QUEUE: taskQueue,
  AGENT_ENCRYPTION_KEYS: keyEntry,
  AGENT_TRANSCRIPT_DIR: transcriptDir,
  AGENT_PAYLOAD_DIR: payloadDir,
  OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
  OTEL_SERVICE_NAME: 'mcp-secrets',
  AGENT_WORKFLOW_BUNDLE: tracedBundle,
});

function expectNoCanary(where: string, text: string): void {
  const found = text.toLowerCase().indexOf(marker);
  if (found >= 0)
    throw new Error(`a secret of the MCP config is in ${where}: …${text.slice(Math.max(0, found - 200), found + 80)}…`);
}

/** The run's history as Temporal stores it (failure messages are in the clear), and every payload decrypted with the codec. */
async function historyTexts(workflowId: string): Promise<{ raw: string; decoded: string }> {
  const history = await fetchRawHistory(bed.environment.connection, workflowId);
  const codec = new EncryptionCodec(parseEncryptionKeys(keyEntry, 'test'));
  const encrypted = history.payloads.filter((payload) => encodingOf(payload) === encryptedEncoding) as Payload[];
  expect(encrypted.length).toBeGreaterThan(5);
  const decoded = await codec.decode(encrypted);
  return {
    raw: history.bytes.toString('latin1'),
    decoded: decoded.map((payload) => Buffer.from(payload.data ?? []).toString()).join('\n'),
  };
}

function expectCleanOutput(command: string, result: CliResult): void {
  expectNoCanary(`the stdout of ${command}`, result.stdout);
  expectNoCanary(`the stderr of ${command}`, result.stderr);
}

it('keeps every secret of the MCP config out of the history, transcripts, spans and CLI output of a run, its failures included', async () => {
  bed.server.enqueue(
    openaiReply({
      toolCalls: [
        { id: 'call_add', name: 'calc_add', arguments: { a: 2, b: 3 } },
        { id: 'call_remote', name: 'remote_add', arguments: { a: 1, b: 1 } },
      ],
    }),
    openaiReply({ content: 'calc says 5; remote refused.' }),
  );
  const run = await runCli(
    ['run', 'Add on both', '--json', '--workspace', bed.workspace],
    cliEnv(uniqueTaskQueue('mcp-secrets')),
  );
  expectCleanOutput('agent run', run);
  expect(run.code).toBe(0);
  const { workflowId, answer } = lastJsonLine(run.stdout);
  expect(answer).toBe('calc says 5; remote refused.');

  // What the model was sent (and so what the history and transcripts hold): each failure, redacted but still telling.
  const toolMessages = bed.server.requests[1].body.messages.filter((message: { role: string }) => message.role === 'tool');
  expect(toolMessages).toEqual([
    { role: 'tool', tool_call_id: 'call_add', content: '5' },
    {
      role: 'tool',
      tool_call_id: 'call_remote',
      content:
        'Error: remote_add failed after 3 attempt(s): MCP server "remote" is unavailable: Streamable HTTP error: Error POSTing to endpoint: no access to /mcp/***?***',
    },
  ]);
  expectNoCanary('the model requests', JSON.stringify(bed.server.requests.map((request) => request.body)));

  const history = await historyTexts(String(workflowId));
  expectNoCanary('the stored history', history.raw);
  expectNoCanary('the decoded history', history.decoded);
  // The listing says why each server is left out, with its address redacted.
  expect(history.decoded).toMatch(
    /MCP server \\"gone\\" could not be reached at http:\/\/127\.0\.0\.1:\d+\/mcp\/\*\*\*: fetch failed \(ECONNREFUSED\)/,
  );
  expect(history.decoded).toMatch(/MCP server \\"nowhere\\" could not be reached at http:\/\/\*\*\*\.invalid\/mcp/);
  expect(history.decoded).toMatch(
    /MCP server \\"missing\\" could not be reached at http:\/\/127\.0\.0\.1:\d+\/wrong\/\*\*\*: .*nothing at \/wrong\/\*\*\*\?\*\*\*/,
  );
  expect(history.decoded).toMatch(/MCP server \\"locked\\" could not be reached at http:\/\/127\.0\.0\.1:\d+\/mcp: /);
  expect(history.decoded).toMatch(
    /MCP server \\"broken\\" could not be started \(.* \*\*\*\): MCP error -32000: Connection closed; its stderr is in the worker's log/,
  );

  // The transcripts and the external payloads are sealed; what they hold in the clear must not be a secret either.
  for (const file of [...(await filesUnder(transcriptDir)), ...(await filesUnder(payloadDir))]) {
    expectNoCanary(file, (await readFile(file)).toString('latin1'));
  }

  // Every span the run exported (the CLI flushes before it exits), exception messages included.
  const spans = await waitFor("the run's spans", async () => {
    const text = await readFile(collector.spansFile, 'utf8').catch(() => '');
    return text.includes(String(workflowId)) && text.includes('remote_add') && text;
  });
  expectNoCanary('the exported spans', spans);

  // The stdio server's stderr went to the worker's log (the CLI's own worker: its stderr), redacted.
  expect(run.stderr).toMatch(/MCP server "calc" stderr: environment: .*"CALC_TOKEN":"\*\*\*"/);
});

it('fails a run that names a server it cannot reach with a redacted reason', async () => {
  const run = await runCli(
    ['run', 'Use it', '--tools', 'mcp:missing', '--workspace', bed.workspace],
    cliEnv(uniqueTaskQueue('mcp-secrets-fail')),
  );
  expectCleanOutput('agent run --tools mcp:missing', run);
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(
    /the run names mcp:missing, and MCP server "missing" could not be reached at http:\/\/127\.0\.0\.1:\d+\/wrong\/\*\*\*/,
  );
  expect(bed.server.requests).toHaveLength(0);
});

it('prints redacted addresses and failures in agent tools', async () => {
  const env = cliEnv(uniqueTaskQueue('mcp-secrets-tools'));
  const plain = await runCli(['tools'], env);
  expectCleanOutput('agent tools', plain);
  expect(plain.code).toBe(1);
  expect(plain.stdout).toMatch(
    /MCP server remote \(http http:\/\/127\.0\.0\.1:\d+\/mcp\/\*\*\*; all its tools: mcp:remote\)\n {2}remote_add/,
  );
  expect(plain.stdout).toContain('MCP server locked (http http://127.0.0.1:');
  expect(plain.stdout).toMatch(/MCP server calc \(stdio .* --stderr-env --tag=\*\*\*;/);

  const json = await runCli(['tools', '--json'], env);
  expectCleanOutput('agent tools --json', json);
  const { mcpServers } = lastJsonLine(json.stdout) as { mcpServers: Array<{ name: string; address: string; error?: string }> };
  expect(mcpServers.map((server) => [server.name, server.address])).toEqual([
    ['calc', expect.stringMatching(/--stderr-env --tag=\*\*\*$/)],
    ['remote', expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp\/\*\*\*$/)],
    ['locked', expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)],
    ['gone', expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp\/\*\*\*$/)],
    ['nowhere', 'http://***.invalid/mcp'],
    ['missing', expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/wrong\/\*\*\*$/)],
    ['broken', expect.stringMatching(/ -e .* \*\*\*$/)],
  ]);
  expect(mcpServers.filter((server) => server.error).map((server) => server.name)).toEqual([
    'locked',
    'gone',
    'nowhere',
    'missing',
    'broken',
  ]);
});
