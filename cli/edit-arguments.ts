import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { ToolCall } from '../core/messages';
import { parseToolArguments } from '../core/tool-arguments';
import { messagesQuery } from '../workflows/definitions';
import { UsageError } from './help';

/**
 * The tool call `id` as the run's conversation holds it now: the arguments that will run (a person's edit, once
 * there is one). A subagent's call (`call_r/call_w`) is in the subagent's conversation, not this one: undefined.
 */
export async function conversationCall(handle: WorkflowHandle, id: string): Promise<ToolCall | undefined> {
  const messages = await handle.query(messagesQuery);
  return messages.flatMap((message) => (message.role === 'assistant' ? message.toolCalls : [])).find((tool) => tool.id === id);
}

/**
 * Opens the call's arguments, as indented JSON, in the person's $VISUAL or $EDITOR (vi without either), and returns
 * what they leave there, trimmed. Through the shell, as git runs an editor: EDITOR may carry its own arguments
 * (`code --wait`). Not spawnSync: `agent chat` and `agent run` run a worker in the same process, whose activities
 * must go on heartbeating while the person edits. `around` lets the caller stop reading the terminal meanwhile.
 * The run checks what comes back (the approve update's validator), and names what is wrong.
 */
export async function editInEditor(call: ToolCall, around: { pause(): void; resume(): void } = noPause): Promise<string> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'agent-approve-'));
  const file = path.join(directory, `${call.name}.json`);
  try {
    const parsed = parseToolArguments(call.arguments);
    await writeFile(file, parsed.ok ? `${JSON.stringify(parsed.value, null, 2)}\n` : call.arguments, { mode: 0o600 });
    const editor = process.env.VISUAL || process.env.EDITOR || 'vi';
    around.pause();
    const status = await new Promise<number | null>((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', `${editor} "$1"`, 'editor', file], { stdio: 'inherit' });
      child.on('error', reject);
      child.on('exit', (code) => resolve(code));
    }).finally(() => around.resume());
    if (status !== 0) throw new UsageError(`the editor (${editor}) exited with ${status}: nothing was approved`);
    return (await readFile(file, 'utf8')).trim();
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

const noPause = { pause() {}, resume() {} };
