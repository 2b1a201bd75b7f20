import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { openaiReply } from '../support/fake-model-server';
import { makeWorkspace } from '../support/workspace';
import { useServedChat } from './served-chat';
import { chat, newChatId, textOf, userMessage, type UiMessage } from './chat-client';

// The model as an attacker, against a person approving in a browser: a write_file path of 274 characters whose
// `../..` climbs back out of `docs/aaaa…`, so that its end (`.bashrc`, the file really written) falls past any cut at
// its start. The approval and the tool card must name the file that will be written; `ai`'s own client reads them.

let outside = '';
let workspace = '';
// Registered before the served chat's, which reads the workspace when it starts.
beforeAll(async () => {
  // The workspace inside a directory of its own: whatever lands beside it was written outside the workspace.
  outside = await makeWorkspace();
  workspace = path.join(outside, 'workspace');
  await mkdir(workspace);
});
const web = useServedChat('web-approval-target', () => ({
  input: {
    model: 'openai:gpt-4o-mini',
    tools: ['write_file'],
    workspace,
    approval: { tools: ['write_file'], timeoutSeconds: 600 },
  },
}));
const { bed } = web;

const hiddenTarget = `docs/${'a'.repeat(255)}/../../.bashrc`;

it('names the file a write will really write, in the approval and on the tool card, and writes nothing outside the workspace', async () => {
  expect(hiddenTarget.length).toBeGreaterThan(270);
  bed.server.enqueue(
    openaiReply({
      toolCalls: [{ id: 'call_rc', name: 'write_file', arguments: { path: hiddenTarget, content: 'echo pwned\n' } }],
    }),
    openaiReply({ content: 'Written.' }),
  );
  const id = newChatId();
  const asked = await chat(web.served.api, 'alice', id, [userMessage('tidy the docs')]);
  expect(asked.invalid).toEqual([]);
  const card = asked.message.parts.find((part) => part.type === 'tool-write_file')!;
  expect(card).toMatchObject({ state: 'approval-requested', input: { path: '.bashrc', content: 'echo pwned\n' } });
  const request = asked.chunks.find((chunk) => chunk.type === 'tool-approval-request')!;
  expect(request.reason).toBe('write_file ".bashrc" (11 bytes, 1 line)\n  │ echo pwned');
  const titles = asked.chunks.filter((chunk) => chunk.type === 'tool-input-start').map((chunk) => chunk.title);
  expect(titles).toEqual(['write_file ".bashrc" (11 bytes, 1 line)']);
  // Nothing the person is shown still holds the climb: not the path as written, not a cut of it.
  expect(JSON.stringify(asked.chunks)).not.toContain('aaaa');

  const responded: UiMessage = {
    ...asked.message,
    parts: asked.message.parts.map((part) =>
      part.type === 'tool-write_file'
        ? { ...part, state: 'approval-responded', approval: { ...(part.approval as object), approved: true } }
        : part,
    ),
  };
  const done = await chat(web.served.api, 'alice', id, [userMessage('tidy the docs'), responded], {
    messageId: responded.id,
    lastMessage: responded,
  });
  expect(textOf(done.message)).toContain('Written.');
  // What was approved is what ran: `.bashrc` at the workspace's top, nothing else, nothing beside the workspace.
  expect(await readdir(workspace)).toEqual(['.bashrc']);
  expect(await readFile(path.join(workspace, '.bashrc'), 'utf8')).toBe('echo pwned\n');
  expect(await readdir(outside)).toEqual(['workspace']);
});
