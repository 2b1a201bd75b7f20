import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import type { McpListing } from '../../mcp/types';
import { activityCalls } from '../support/activity-calls';

/**
 * A run with MCP tools replays from its history alone: the listing is the
 * recorded result of listMcpTools, and each tool call's result is recorded
 * too, so the replaying worker has no MCP config and starts no server.
 */
it('replays a run that listed and called MCP tools without any MCP server', async () => {
  const json = JSON.parse(await readFile(path.join(__dirname, 'histories', 'mcp-tools.json'), 'utf8'));
  const history = historyFromJSON(json);
  const calls = activityCalls(history.events ?? []);
  expect(calls.map((call) => call.activityType)).toEqual([
    'prepareRun',
    'listMcpTools',
    'callModel',
    'calc_add',
    'calc_fail',
    'callModel',
  ]);
  const { listing } = calls[1].result as { listing: McpListing };
  expect(Object.keys(listing.tools)).toEqual(['calc_add', 'calc_fail', 'calc_pid']);
  expect(calls[3].result).toBe('5');
  expect(calls[4].failure).toMatchObject({ type: 'ToolRefused', message: 'fail was asked to fail: recorded' });

  await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } }, history, 'replay-mcp-tools');
});
