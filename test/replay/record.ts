/**
 * `npm run record-histories`: runs each scenario below on a fresh dev server
 * through the real worker, the real provider SDKs and the local fake model
 * server, and saves each run's event history to test/replay/histories/.
 * The replay test replays every file there against the current workflow code.
 * Name scenarios to record only those (`npm run record-histories -- session-continue-as-new`).
 * Re-record only when a history change is intended; keep the old files too
 * when runs recorded with them may still be open in production.
 * `--as <name>` records beside them instead: workflow ids `replay-<name>-<scenario>` and files
 * `<name>-<scenario>….json`, so the histories of one shape of the code stay next to an older shape's
 * (`npm run record-histories -- --as agent-run` recorded the shape of workflows/agent-run.ts).
 * A scenario's attachments (and a tool's, read_file of a PNG) are stored in this process's attachment store, which
 * its worker shares (AGENT_PAYLOAD_DIR, else the data directory); the histories hold their references only, so the
 * replay needs no store.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { z } from 'zod';
import type { AgentInput } from '../../core/resolve-input';
import { defineAgent } from '../../agents/define-agent';
import { builtInTools, defineTool } from '../../tools';
import { ensureTemporalCli } from '../../cli/dev-server/find-temporal-cli';
import { createAgentWorker } from '../../worker/create-worker';
import { followStream } from '../../client/follow-stream';
import { sendMessage } from '../../client/send-message';
import { storeAttachments, type AttachmentInput } from '../../client/attachment-input';
import {
  agentWorkflowType,
  approveUpdate,
  denyUpdate,
  endSessionSignal,
  interruptUpdate,
  statusQuery,
} from '../../workflows/definitions';
import {
  anthropicBlocksReply,
  anthropicError,
  anthropicReply,
  FakeModelServer,
  openaiError,
  openaiReply,
  openaiResponsesItemsReply,
  openaiResponsesReply,
  type FakeStep,
} from '../support/fake-model-server';
import { pngBytes } from '../support/attachment-files';
import { resolved } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';
import { stdioServerEntry } from '../support/mcp-test-server';
import type { Definitions } from '../../agents/registry';

interface Scenario {
  name: string;
  input: Omit<AgentInput, 'workspace'>;
  replies: FakeStep[];
  /** Cancel the run once the model server has received this many requests (the last one hangs until then). */
  cancelAtRequest?: number;
  /** Images and files sent with the prompt: stored first (this process's attachment store, the worker's too). */
  attachments?: AttachmentInput[];
  /** Files of the workspace besides alpha.txt and beta.txt (a PNG for read_file to return as an image). */
  files?: Record<string, string | Uint8Array>;
  /** For a session: the messages to send, one update each, before ending it. */
  messages?: string[];
  /** MCP servers of the recording worker (the replay needs none). */
  mcpServers?: Definitions['mcpServers'];
  /** Subscribe to the run's stream while it runs (its polls, an update each, are then in the history too). */
  watch?: boolean;
  /** What a person does while the run goes on (decide approvals, interrupt), beside the messages. */
  during?: (handle: WorkflowHandle, server: FakeModelServer) => Promise<void>;
}

const researcher = defineAgent({
  name: 'researcher',
  description: 'Reads files and reports what they say.',
  instructions: 'You research.',
  model: 'anthropic:claude-haiku-4-5',
  tools: ['read_file'],
});
const coordinator = defineAgent({
  name: 'coordinator',
  description: 'Delegates.',
  instructions: 'You delegate.',
  model: 'openai:gpt-4o-mini',
  subagents: [researcher],
});
const billing = defineAgent({
  name: 'billing',
  description: 'Answers billing questions.',
  instructions: 'You do billing.',
  model: 'anthropic:claude-haiku-4-5',
});
const triage = defineAgent({
  name: 'triage',
  description: 'Routes questions.',
  instructions: 'You route.',
  model: 'openai:gpt-4o-mini',
  handoffs: [billing],
});

// Runs until it is cancelled (for recording an interrupt while a tool runs).
const holdTool = defineTool({
  name: 'hold',
  description: 'Waits until it is cancelled.',
  input: z.object({}),
  async handler(_input, { signal }) {
    return new Promise<string>((_resolve, reject) =>
      signal.addEventListener('abort', () => reject(new Error('cancelled')), { once: true }),
    );
  },
});

// Runs until the recording opens its gate (for recording a steering message sent while a tool runs).
let openGate: () => void = () => undefined;
const gateTool = defineTool({
  name: 'wait_for_gate',
  description: 'Waits until the recording opens its gate.',
  input: z.object({}),
  async handler() {
    await new Promise<void>((resolve) => (openGate = resolve));
    return 'the gate is open';
  },
});

/** A person steers the turn while its tool runs: sent once the tool runs, the gate opened once the session has it. */
async function steerWhileToolRuns(handle: WorkflowHandle, text: string): Promise<void> {
  // By workflow id only: the reply may come from the run the session continues as new into.
  const session = handle.client.getHandle(handle.workflowId);
  await until(async () => (await session.query(statusQuery)).phase === 'running_tools');
  const steered = sendMessage(session, text, { steer: true });
  await until(async () => (await session.query(statusQuery)).queuedMessages === 1);
  openGate();
  await steered;
}

/** Polls `check` every 200 ms until it holds. */
async function until(check: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await check())) await sleep(200);
}

let flakyCalls = 0;
// Fails its first attempt, so the recorded history holds a tool retry.
const flakyTool = defineTool({
  name: 'flaky_lookup',
  description: 'Looks a key up; the first attempt fails (for recording a retry).',
  input: z.object({ key: z.string() }),
  activity: { maximumAttempts: 3, initialRetryInterval: '1s' },
  async handler({ key }) {
    if (++flakyCalls === 1) throw new Error('lookup service unavailable');
    return `value of ${key}`;
  },
});

// Opted in to local activities, so the recorded history holds local-activity markers instead of activity events.
const stampTool = defineTool({
  name: 'stamp',
  description: 'Stamps a label.',
  input: z.object({ label: z.string() }),
  activity: { local: true },
  async handler({ label }) {
    return `stamped ${label}`;
  },
});

const scenarios: Scenario[] = [
  {
    name: 'local-activity-tool',
    input: { prompt: 'Stamp a and b, then read alpha.txt', model: 'openai:gpt-4o-mini', tools: ['stamp', 'read_file'] },
    replies: [
      openaiReply({
        toolCalls: [
          { id: 'call_1', name: 'stamp', arguments: { label: 'a' } },
          { id: 'call_2', name: 'stamp', arguments: { label: 'b' } },
        ],
      }),
      openaiReply({ toolCalls: [{ id: 'call_3', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
      openaiReply({ content: 'Stamped a and b; alpha.txt read.' }),
    ],
  },
  {
    name: 'openai-parallel-tools',
    input: { prompt: 'Compare alpha.txt and beta.txt', model: 'openai:gpt-4o-mini', tools: ['read_file', 'list_directory'] },
    replies: [
      openaiReply({
        toolCalls: [
          { id: 'call_1', name: 'read_file', arguments: { path: 'alpha.txt' } },
          { id: 'call_2', name: 'read_file', arguments: { path: 'beta.txt' } },
          { id: 'call_3', name: 'list_directory', arguments: { path: '.' } },
        ],
      }),
      openaiReply({ content: 'alpha and beta differ in their first letter.' }),
    ],
  },
  {
    name: 'anthropic-write-then-read',
    input: {
      prompt: 'Write a note and read it back',
      model: 'anthropic:claude-haiku-4-5',
      systemPrompt: 'Be brief.',
      tools: ['write_file', 'read_file'],
    },
    replies: [
      anthropicReply({
        text: 'Writing.',
        toolCalls: [{ id: 'toolu_1', name: 'write_file', arguments: { path: 'note.md', content: 'hello' } }],
      }),
      anthropicReply({ toolCalls: [{ id: 'toolu_2', name: 'read_file', arguments: { path: 'note.md' } }] }),
      anthropicReply({ text: 'The note says hello.' }),
    ],
  },
  {
    name: 'retries-and-tool-errors',
    input: { prompt: 'Look things up', model: 'openai:gpt-4o-mini', tools: ['read_file', 'flaky_lookup'] },
    replies: [
      openaiError(500, 'The server had an error while processing your request.'),
      openaiReply({
        toolCalls: [
          { id: 'call_1', name: 'flaky_lookup', arguments: { key: 'answer' } },
          { id: 'call_2', name: 'no_such_tool', arguments: {} },
          { id: 'call_3', name: 'read_file', arguments: '{"path": ' },
          { id: 'call_4', name: 'read_file', arguments: { file: 'alpha.txt' } },
          { id: 'call_5', name: 'read_file', arguments: { path: '../../etc/passwd' } },
        ],
      }),
      openaiError(429, 'Rate limit reached', { 'retry-after': '1' }),
      openaiReply({ content: 'The answer was found after a retry; the other calls failed.' }),
    ],
  },
  {
    name: 'max-iterations-reflection',
    input: { prompt: 'Keep listing', model: 'openai:gpt-4o-mini', tools: ['list_directory'], maxIterations: 2 },
    replies: [
      openaiReply({ toolCalls: [{ id: 'call_1', name: 'list_directory', arguments: {} }] }),
      openaiReply({ toolCalls: [{ id: 'call_2', name: 'list_directory', arguments: {} }] }),
      openaiReply({ content: 'I listed the directory twice.' }),
    ],
  },
  {
    name: 'cancelled-during-model-call',
    input: { prompt: 'Start and get cancelled', model: 'openai:gpt-4o-mini', tools: ['list_directory'] },
    replies: [openaiReply({ toolCalls: [{ id: 'call_1', name: 'list_directory', arguments: {} }] }), { hang: true }],
    cancelAtRequest: 2,
  },
  {
    // A turn the provider rejects fails only its message and is rolled back; the next message is answered.
    name: 'session-turn-fails-and-recovers',
    input: { model: 'anthropic:claude-haiku-4-5', tools: ['read_file'], session: { idleTimeoutSeconds: 600 } },
    replies: [
      anthropicError(400, 'prompt is too long: 250000 tokens > 200000 maximum'),
      anthropicReply({ text: 'short answer' }),
    ],
    messages: ['a very long message', 'a short one'],
  },
  {
    // A reply cut at the output-token limit carries tool calls: each gets a "not run" result.
    name: 'truncated-tool-calls-closed',
    input: { model: 'openai:gpt-4o-mini', tools: ['read_file'], session: { idleTimeoutSeconds: 600 } },
    replies: [
      openaiReply({
        content: 'partial',
        toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'alpha.txt' } }],
        finishReason: 'length',
      }),
      openaiReply({ content: 'second answer' }),
    ],
    messages: ['first', 'second'],
  },
  {
    // A session turn continues as new mid-tool-loop: its caller is told to ask the next run, which answers.
    name: 'session-hands-over-mid-turn',
    input: {
      model: 'openai:gpt-4o-mini',
      tools: ['read_file'],
      session: { idleTimeoutSeconds: 600 },
      continueAsNewAfterModelCalls: 2,
    },
    replies: [
      openaiReply({ toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
      openaiReply({ toolCalls: [{ id: 'call_2', name: 'read_file', arguments: { path: 'beta.txt' } }] }),
      openaiReply({ content: 'alpha and beta' }),
    ],
    messages: ['read both'],
  },
  {
    // A coordinator asks a subagent (a child workflow, recorded too) and answers with what it found.
    name: 'subagent',
    input: { agent: 'coordinator', prompt: 'Ask the researcher what alpha.txt says' },
    replies: [
      openaiReply({ toolCalls: [{ id: 'call_r', name: 'researcher', arguments: { task: 'read alpha.txt' } }] }),
      anthropicReply({ toolCalls: [{ id: 'toolu_read', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
      anthropicReply({ text: 'alpha.txt says alpha' }),
      openaiReply({ content: 'The researcher says alpha.txt says alpha.' }),
    ],
  },
  {
    // Triage (OpenAI) hands the conversation to billing (Anthropic), which answers.
    name: 'handoff',
    input: { agent: 'triage', prompt: 'Is my invoice paid?' },
    replies: [
      openaiReply({ toolCalls: [{ id: 'call_h', name: 'transfer_to_billing', arguments: {} }] }),
      anthropicReply({ text: 'Your invoice is paid.' }),
    ],
  },
  {
    // A fork: a session started from another run's conversation (after its tool round), answering a new message.
    name: 'fork',
    input: {
      model: 'anthropic:claude-haiku-4-5',
      tools: ['read_file'],
      session: { idleTimeoutSeconds: 600 },
      forkedFrom: { workflowId: 'replay-openai-parallel-tools', runId: '00000000-0000-0000-0000-000000000000', messageIndex: 3 },
      messages: [
        { role: 'user', content: 'What does alpha.txt say?' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"alpha.txt"}' }] },
        { role: 'tool', toolCallId: 'call_1', toolName: 'read_file', content: 'alpha', isError: false },
      ],
    },
    replies: [anthropicReply({ text: 'alpha.txt says alpha.' })],
    messages: ['Say it again, on another model'],
  },
  {
    // A run stopped by its cost budget before a call whose worst case would pass it.
    name: 'cost-budget',
    input: { prompt: 'Keep reading', model: 'openai:gpt-4o-mini', tools: ['read_file'], maxCostUsd: 0.004 },
    replies: [
      openaiReply({ toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'alpha.txt' } }], inputTokens: 10_000 }),
    ],
  },
  {
    // Batch mode on Anthropic: each model call a batch of one, waited on with timers, submitted, checked, read.
    name: 'anthropic-batch-tool-loop',
    input: {
      prompt: 'Read alpha.txt',
      model: 'anthropic:claude-haiku-4-5',
      tools: ['read_file'],
      batch: { firstCheckSeconds: 0.2, maxCheckIntervalSeconds: 0.5, maxSubmissions: 2 },
    },
    replies: [
      anthropicReply({ toolCalls: [{ id: 'toolu_1', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
      anthropicReply({ text: 'alpha.txt says alpha.' }),
    ],
  },
  {
    // Extended thinking in a tool loop: each reply thinks (interleaved, partly redacted), and every later call carries it all back.
    name: 'anthropic-thinking-tool-loop',
    input: {
      prompt: 'Read alpha.txt, then beta.txt',
      model: 'anthropic:claude-sonnet-4-6',
      tools: ['read_file'],
      thinkingBudget: 2048,
    },
    replies: [
      anthropicReply({
        thinking: ['Start with alpha.txt.'],
        text: 'Reading alpha.txt.',
        toolCalls: [{ id: 'toolu_a', name: 'read_file', arguments: { path: 'alpha.txt' } }],
      }),
      anthropicBlocksReply([
        { thinking: 'Now beta.txt.' },
        { redactedThinking: true },
        { toolCall: { id: 'toolu_b', name: 'read_file', arguments: { path: 'beta.txt' } } },
      ]),
      anthropicReply({ thinking: ['Both read.'], text: 'alpha.txt says alpha, beta.txt says beta.' }),
    ],
  },
  {
    // A reasoning model on the Responses API: encrypted reasoning goes back unchanged, nothing stored at OpenAI.
    name: 'openai-responses-reasoning-tool-loop',
    input: {
      prompt: 'Read alpha.txt, then beta.txt',
      model: 'openai-responses:o4-mini',
      tools: ['read_file'],
      reasoningEffort: 'high',
    },
    replies: [
      openaiResponsesReply({
        reasoning: ['Start with alpha.txt.'],
        toolCalls: [{ id: 'call_a', name: 'read_file', arguments: { path: 'alpha.txt' } }],
      }),
      openaiResponsesItemsReply([
        { reasoning: '' },
        { text: 'Now beta.txt.' },
        { toolCall: { id: 'call_b', name: 'read_file', arguments: { path: 'beta.txt' } } },
      ]),
      openaiResponsesReply({ reasoning: ['Both read.'], content: 'alpha.txt says alpha, beta.txt says beta.' }),
    ],
  },
  {
    // The run's settings as one modelSettings object (the two scenarios above were recorded when the input carried
    // them one by one; their files stay, as runs of that shape may be in flight, and recording them again now writes
    // this shape): the input, prepareRun's overrides and every model call carry modelSettings.
    name: 'model-settings-anthropic-thinking',
    input: {
      prompt: 'Read alpha.txt, then beta.txt',
      model: 'anthropic:claude-sonnet-4-6',
      tools: ['read_file'],
      modelSettings: { thinkingBudget: 2048, maxOutputTokens: 1000 },
    },
    replies: [
      anthropicReply({
        thinking: ['Start with alpha.txt.'],
        text: 'Reading alpha.txt.',
        toolCalls: [{ id: 'toolu_a', name: 'read_file', arguments: { path: 'alpha.txt' } }],
      }),
      anthropicReply({ thinking: ['Both read.'], text: 'alpha.txt says alpha.' }),
    ],
  },
  {
    // A session in the new shape that continues as new: the next run's input carries modelSettings on.
    name: 'model-settings-session-continue-as-new',
    input: {
      model: 'openai:gpt-4o-mini',
      tools: ['read_file'],
      session: { idleTimeoutSeconds: 600 },
      continueAsNewAfterModelCalls: 2,
      modelSettings: { temperature: 0.5, reasoningEffort: 'low', maxOutputTokens: 500 },
    },
    replies: [
      openaiReply({ toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
      openaiReply({ content: 'alpha says alpha' }),
      openaiReply({ content: 'and beta is next to it' }),
    ],
    messages: ['What does alpha.txt say?', 'And what else is there?'],
  },
  {
    // MCP tools of a stdio server: listed once (listMcpTools, recorded), one call answered, one a tool error.
    name: 'mcp-tools',
    input: { prompt: 'Add 2 and 3, then fail', model: 'openai:gpt-4o-mini', tools: ['read_file', 'mcp:*'] },
    mcpServers: { calc: stdioServerEntry() },
    replies: [
      openaiReply({
        toolCalls: [
          { id: 'call_add', name: 'calc_add', arguments: { a: 2, b: 3 } },
          { id: 'call_fail', name: 'calc_fail', arguments: { reason: 'recorded' } },
        ],
      }),
      openaiReply({ content: '2 + 3 = 5, and fail failed.' }),
    ],
  },
  {
    name: 'session-continue-as-new',
    input: {
      model: 'openai:gpt-4o-mini',
      tools: ['read_file'],
      session: { idleTimeoutSeconds: 600 },
      continueAsNewAfterModelCalls: 2,
      context: { compactAfterTurns: 1, keepRecentTurns: 4 },
    },
    replies: [
      openaiReply({ toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
      openaiReply({ content: 'alpha says alpha' }),
      openaiReply({ content: 'and beta is next to it' }),
    ],
    messages: ['What does alpha.txt say?', 'And what else is there?'],
  },
  {
    // A streamed session, watched: text published by the model activity (signals), polls (updates), the stream
    // handed over across continue-as-new.
    name: 'session-streamed-watched',
    input: {
      model: 'openai:gpt-4o-mini',
      tools: ['read_file'],
      session: { idleTimeoutSeconds: 600 },
      continueAsNewAfterModelCalls: 2,
      stream: true,
    },
    replies: [
      {
        ...openaiReply({
          content: 'Let me read it.',
          toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'alpha.txt' } }],
        }),
        stream: { intervalMs: 60 },
      },
      { ...openaiReply({ content: 'It says alpha, and that is all it says.' }), stream: { intervalMs: 60 } },
      { ...openaiReply({ content: 'Beta sits next to it.' }), stream: { intervalMs: 60 } },
    ],
    messages: ['What does alpha.txt say?', 'And what else is there?'],
    watch: true,
  },
  {
    // Two file writes wait for approval: one approved (it runs), one denied with a reason (an error result).
    name: 'approval-approved-and-denied',
    input: {
      prompt: 'Write a.txt and b.txt',
      model: 'openai:gpt-4o-mini',
      tools: ['write_file'],
      approval: { tools: ['write_file'] },
    },
    replies: [
      openaiReply({
        toolCalls: [
          { id: 'call_a', name: 'write_file', arguments: { path: 'a.txt', content: 'alpha' } },
          { id: 'call_b', name: 'write_file', arguments: { path: 'b.txt', content: 'beta' } },
        ],
      }),
      openaiReply({ content: 'Wrote a.txt; b.txt was denied.' }),
    ],
    during: async (handle) => {
      await until(async () => (await handle.query(statusQuery)).pendingApprovals.length === 2);
      await handle.executeUpdate(approveUpdate, { args: [{ call: 'call_a' }] });
      await handle.executeUpdate(denyUpdate, { args: [{ call: 'call_b', reason: 'one file is enough' }] });
    },
  },
  {
    // A session turn interrupted while a tool runs (read_file finished, hold cancelled), then the next message answered.
    name: 'session-turn-interrupted',
    input: { model: 'anthropic:claude-haiku-4-5', tools: ['read_file', 'hold'], session: { idleTimeoutSeconds: 600 } },
    messages: ['Read alpha.txt and hold', 'Just say hi'],
    replies: [
      anthropicReply({
        text: 'Reading and holding.',
        toolCalls: [
          { id: 'toolu_read', name: 'read_file', arguments: { path: 'alpha.txt' } },
          { id: 'toolu_hold', name: 'hold', arguments: {} },
        ],
      }),
      anthropicReply({ text: 'Hi.' }),
    ],
    during: async (handle) => {
      await until(async () => {
        const status = await handle.query(statusQuery);
        return status.phase === 'running_tools' && status.toolCallsInFlight.length === 1;
      });
      await sleep(500);
      await handle.executeUpdate(interruptUpdate);
    },
  },
  {
    // A session whose calls read and write Anthropic's prompt cache, continuing as new mid-turn and between turns:
    // the carried usage (and the turn's) holds cache counts, which every run must sum (issue 30).
    name: 'session-prompt-cache-continue-as-new',
    input: {
      model: 'anthropic:claude-sonnet-4-5',
      systemPrompt: `You answer about the files. ${'Rule: be precise, cite the file, keep it short. '.repeat(165)}`,
      tools: ['read_file'],
      session: { idleTimeoutSeconds: 600 },
      continueAsNewAfterModelCalls: 1,
    },
    replies: [
      anthropicReply({ toolCalls: [{ id: 'toolu_a', name: 'read_file', arguments: { path: 'alpha.txt' } }], inputTokens: 2100 }),
      anthropicReply({ text: 'alpha.txt says alpha.', inputTokens: 2200 }),
      anthropicReply({ text: 'beta.txt is next to it.', inputTokens: 2300 }),
    ],
    messages: ['What does alpha.txt say?', 'And what else is there?'],
  },
  {
    // A person steers a session's turn while its tool runs: the turn takes the message after the tool's result and
    // answers it with its next model call (issue 33).
    name: 'session-steered',
    input: { model: 'openai:gpt-4o-mini', tools: ['wait_for_gate'], session: { idleTimeoutSeconds: 600 } },
    replies: [
      openaiReply({ content: 'Waiting.', toolCalls: [{ id: 'call_gate', name: 'wait_for_gate', arguments: {} }] }),
      openaiReply({ content: 'Done, as you asked.' }),
    ],
    messages: ['Wait for the gate'],
    during: (handle) => steerWhileToolRuns(handle, 'Then say done'),
  },
  {
    // The same on Anthropic, continuing as new after the tool round: the steering message waits in the carried
    // inbox, and the next run's turn takes it before its first model call.
    name: 'session-steered-continue-as-new',
    input: {
      model: 'anthropic:claude-haiku-4-5',
      tools: ['wait_for_gate'],
      session: { idleTimeoutSeconds: 600 },
      continueAsNewAfterModelCalls: 1,
    },
    replies: [
      anthropicReply({ text: 'Waiting.', toolCalls: [{ id: 'toolu_gate', name: 'wait_for_gate', arguments: {} }] }),
      anthropicReply({ text: 'Done, as you asked.' }),
    ],
    messages: ['Wait for the gate'],
    during: (handle) => steerWhileToolRuns(handle, 'Then say done'),
  },
  {
    // A session that idles out on its IdleClock: one timer runs through a message, the next for the time left.
    name: 'session-idle-clock',
    input: { model: 'openai:gpt-4o-mini', session: { idleTimeoutSeconds: 2 } },
    replies: [openaiReply({ content: 'one' }), openaiReply({ content: 'two' })],
    during: async (handle) => {
      await sendMessage(handle, 'first');
      await sleep(1_200);
      await sendMessage(handle, 'second');
    },
  },
  {
    // Images by reference (docs/attachments.md): a prompt with a PNG, and read_file of a PNG in the workspace, whose
    // result carries it. History holds their references; the bytes are the attachment store's, never replay's.
    name: 'prompt-and-tool-images',
    input: { prompt: 'What is in photo.png, and in chart.png?', model: 'anthropic:claude-haiku-4-5', tools: ['read_file'] },
    attachments: [{ data: pngBytes(0, 1), mediaType: 'image/png', name: 'photo.png' }],
    files: { 'chart.png': pngBytes(0, 2) },
    replies: [
      anthropicReply({
        text: 'Reading it.',
        toolCalls: [{ id: 'toolu_1', name: 'read_file', arguments: { path: 'chart.png' } }],
      }),
      anthropicReply({ text: 'Each is one grey pixel.' }),
    ],
  },
  {
    // A session's message with an image: the update's argument is `{ content, attachments }`, not the bare string.
    name: 'session-message-image',
    input: { model: 'openai:gpt-4o-mini', session: { idleTimeoutSeconds: 600 } },
    replies: [openaiReply({ content: 'A grey pixel.' })],
    during: async (handle) => {
      await sendMessage(handle, 'What is in this photo?', {
        attachments: [{ data: pngBytes(0, 3), mediaType: 'image/png', name: 'photo.png' }],
      });
      await handle.signal(endSessionSignal);
    },
  },
];

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const environment = await TestWorkflowEnvironment.createLocal({
    server: { executable: await ensureTemporalCli(console.error), ip: '127.0.0.1' },
  });
  const server = await FakeModelServer.start();
  const directory = path.join(__dirname, 'histories');
  await mkdir(directory, { recursive: true });
  try {
    const { as, only } = recordingArguments(process.argv.slice(2));
    for (const scenario of scenarios.filter((candidate) => only.length === 0 || only.includes(candidate.name))) {
      const name = as ? `${as}-${scenario.name}` : scenario.name;
      server.reset();
      server.enqueue(...scenario.replies);
      const workspace = await makeWorkspace({ 'alpha.txt': 'alpha', 'beta.txt': 'beta', ...scenario.files });
      const attachments = scenario.attachments ? await storeAttachments(scenario.attachments) : undefined;
      const taskQueue = `record-${scenario.name}`;
      const worker = await createAgentWorker({
        connection: environment.nativeConnection,
        namespace: 'default',
        taskQueue,
        tools: [...builtInTools, flakyTool, holdTool, stampTool, gateTool],
        agents: [coordinator, triage],
        mcpServers: scenario.mcpServers,
        env: server.providerEnv,
        workspaceRoot: path.dirname(workspace),
      });
      const workflowId = `replay-${name}`;
      await worker.runUntil(async () => {
        const handle = await environment.client.workflow.start(agentWorkflowType, {
          taskQueue,
          workflowId,
          args: [resolved({ ...scenario.input, workspace, ...(attachments && { attachments }) })],
        });
        const watching = scenario.watch
          ? followStream(environment.client, workflowId, { from: 0, onEvent: () => {} }).catch((error: Error) =>
              console.error(`watching failed: ${error.message}`),
            )
          : undefined;
        const during = scenario.during?.(handle, server);
        if (scenario.cancelAtRequest !== undefined) {
          while (server.requests.length < scenario.cancelAtRequest) await sleep(200);
          await handle.cancel();
        }
        // Through the client's sendMessage, which follows a message across continue-as-new; a failed turn is part of some scenarios.
        for (const message of scenario.messages ?? [])
          await sendMessage(environment.client.workflow.getHandle(workflowId), message).catch(() => undefined);
        if (scenario.messages) await handle.signal(endSessionSignal);
        await during;
        await handle.result().catch(() => undefined);
        await watching;
      });
      // Every run of the workflow and of its children (ids `<parent>/<tool call id>`), oldest first:
      // a continue-as-new chain is recorded run by run.
      const runs: Array<{ workflowId: string; runId: string }> = [];
      for await (const execution of environment.client.workflow.list({ query: `WorkflowId STARTS_WITH "${workflowId}"` })) {
        runs.unshift({ workflowId: execution.workflowId, runId: execution.runId });
      }
      for (const id of new Set(runs.map((run) => run.workflowId))) {
        const chain = runs.filter((run) => run.workflowId === id);
        const child = id === workflowId ? '' : `-child-${id.slice(workflowId.length + 1)}`;
        for (const [index, { runId }] of chain.entries()) {
          const history = await environment.client.workflow.getHandle(id, runId).fetchHistory();
          const suffix = chain.length > 1 ? `-run${index + 1}` : '';
          const file = path.join(directory, `${name}${child}${suffix}.json`);
          await writeFile(file, historyToJSON(history) + '\n');
          console.log(`recorded ${history.events?.length} events to ${path.relative(process.cwd(), file)}`);
        }
      }
    }
  } finally {
    await server.close();
    await environment.teardown();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `--as <name>` (a prefix for ids and files) and the scenarios named. */
function recordingArguments(args: string[]): { as?: string; only: string[] } {
  const at = args.indexOf('--as');
  if (at < 0) return { only: args };
  const as = args[at + 1];
  if (!as || !/^[a-z0-9-]+$/.test(as)) throw new Error('--as takes a name of lowercase letters, digits and dashes');
  return { as, only: args.filter((_, index) => index !== at && index !== at + 1) };
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
