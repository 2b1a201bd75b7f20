import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

// Workflow code imports from an allow-list (eslint.config.mjs): what runs in Temporal's sandbox, evaluated again for
// every workflow a worker starts, stays deterministic and lean. These probes lint one import each, as if it were written
// in a workflow file, and hold the rule to refusing what is not listed and allowing what is.

const root = path.join(__dirname, '..', '..');

type Probe = { code: string; file: string };

// ESLint loads its .mjs configuration with a dynamic import, which jest's module sandbox refuses: all probes are
// linted at once in a plain Node process, by ESLint's own API.
const linter = `
const { ESLint } = require('eslint');
const probes = JSON.parse(process.argv[1]);
const eslint = new ESLint({ cwd: process.cwd() });
Promise.all(probes.map(async ({ code, file }) => {
  const [result] = await eslint.lintText(code + '\\nexport const probe = 1;\\n', { filePath: require('node:path').join(process.cwd(), file) });
  return result.messages.some((message) => message.ruleId === '@typescript-eslint/no-restricted-imports');
})).then((verdicts) => process.stdout.write(JSON.stringify(verdicts)));
`;

const verdicts = new Map<string, boolean>();
const key = ({ code, file }: Probe) => `${file}: ${code}`;

async function lintAll(probes: Probe[]): Promise<void> {
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', linter, JSON.stringify(probes)], { cwd: root });
  (JSON.parse(stdout) as boolean[]).forEach((refused, index) => verdicts.set(key(probes[index]), refused));
}

function refused(code: string, file: string): boolean {
  const verdict = verdicts.get(key({ code, file }));
  if (verdict === undefined) throw new Error(`not linted: ${file}: ${code}`);
  return verdict;
}

const refusedInWorkflows: Array<[string, string]> = [
  ["import { z } from 'zod';", 'zod, over half a bundle'],
  ["import { readFile } from 'node:fs/promises';", 'a Node built-in'],
  ["import { readFile } from 'fs';", 'a Node built-in without node:'],
  ["import { Client } from '@temporalio/client';", 'a package that is not the workflow SDK'],
  ["import { toolActivity } from '../activities/tool-activity';", "an activity's code"],
  ["import { defineTool } from '../tools/define-tool';", "a tool's code (it brings zod)"],
  ["import { agentInputSchema } from '../core/resolve-input';", 'a zod schema of core/'],
  ["export { callMcpTool } from '../activities/mcp/call-tool-activity';", 'a re-export of MCP activity code'],
];
const allowedInWorkflows = [
  "import { proxyActivities } from '@temporalio/workflow';",
  "import { ApplicationFailure } from '@temporalio/common';",
  "import { WorkflowStream } from '@temporalio/workflow-streams/workflow';",
  "import { clip } from './summaries';",
  "import { checkResolvedInput } from '../core/input-check';",
  "import { listMcpTools } from './mcp/list-tools';",
  "import type { Tool } from '../tools/define-tool';",
  "import type { AgentInput } from '../core/resolve-input';",
  "import type { createActivities } from '../activities';",
];
const elsewhere: Array<[string, string, boolean]> = [
  ["import { z } from 'zod';", 'workflows/mcp/probe.ts', true],
  ["import { callMcpTool } from '../../activities/mcp/call-tool-activity';", 'workflows/mcp/probe.ts', true],
  ["import { modelCall } from '../model-call';", 'workflows/mcp/probe.ts', false],
  ["import type { McpListing } from '../../mcp/types';", 'workflows/mcp/probe.ts', false],
  ["import { mkdir } from 'node:fs/promises';", 'core/probe.ts', true],
  ["import { messageSchema } from './messages';", 'core/probe.ts', true],
  ["import { maxPromptChars } from './limits';", 'core/probe.ts', false],
  // The zod schemas themselves are for the client and the activities.
  ["import { z } from 'zod';", 'core/input.ts', false],
];

beforeAll(
  () =>
    lintAll([
      ...[...refusedInWorkflows.map(([code]) => code), ...allowedInWorkflows].map((code) => ({
        code,
        file: 'workflows/probe.ts',
      })),
      ...elsewhere.map(([code, file]) => ({ code, file })),
    ]),
  60_000,
);

describe('the workflow import allow-list', () => {
  it.each(refusedInWorkflows)('refuses %s in workflows/ (%s)', (code) => {
    expect(refused(code, 'workflows/probe.ts')).toBe(true);
  });

  it.each(allowedInWorkflows)('allows %s in workflows/', (code) => {
    expect(refused(code, 'workflows/probe.ts')).toBe(false);
  });

  it.each(elsewhere)(
    '%s in %s: refused %s (workflows/mcp/ and the core/ files workflows import are held to the list)',
    (code, file, expected) => {
      expect(refused(code, file)).toBe(expected);
    },
  );
});
