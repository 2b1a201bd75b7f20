import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { cliCommandLine, cliEnvironment } from '../support/cli';
import { openaiReply } from '../support/fake-model-server';
import { uniqueTaskQueue } from '../support/temporal';
import { Terminal } from '../support/terminal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';
import { statusQuery } from '../../workflows/definitions';

// A person watches `agent chat` in one terminal and steers its turn with `agent steer` from a second one, both real
// pseudo-terminals (tmux) read off the screen: the chat shows where the turn took the message, and both show the
// turn's one answer; `agent steer` exits 0.

const bed = useTestBed();
afterEach(() => expect(bed.server.refusals).toEqual([]));

const terminals: Terminal[] = [];
afterEach(async () => {
  for (const terminal of terminals.splice(0)) await terminal.close();
});

it('agent steer from a second terminal joins the chat turn in progress; both show the one answer', async () => {
  const workspace = await makeWorkspace({ 'alpha.txt': 'alpha', 'beta.txt': 'beta' });
  let answerFirstCall!: () => void;
  const firstCall = new Promise<void>((resolve) => (answerFirstCall = resolve));
  bed.server.enqueue(
    // Held until the steering message is in: the turn then runs the tool and takes the message before its next call.
    {
      gate: firstCall,
      then: openaiReply({ toolCalls: [{ id: 'call_a', name: 'read_file', arguments: { path: 'alpha.txt' } }] }),
    },
    openaiReply({ content: 'You asked for beta.txt: it says beta.' }),
  );
  const workflowId = `steer-terminal-${randomUUID()}`;
  const env = cliEnvironment({ ...bed.server.providerEnv, AGENT_TASK_QUEUE: uniqueTaskQueue('steer-terminal') });
  const chat = await Terminal.start(
    cliCommandLine(['chat', '--workspace', workspace, '--no-stream', '--tools', 'read_file', '--id', workflowId]),
    env,
  );
  terminals.push(chat);
  await waitFor('the chat to be ready', async () => (await chat.screen()).includes('started; type a message'));
  await chat.typeLine('read alpha.txt');
  await waitFor('the first model call under way', () => bed.server.requests.length === 1);

  const steer = await Terminal.start(cliCommandLine(['steer', workflowId, 'Not that one: read beta.txt instead.']), env, {
    exitStatus: true,
  });
  terminals.push(steer);
  const session = bed.environment.client.workflow.getHandle(workflowId);
  await waitFor('the steering message accepted', async () => (await session.query(statusQuery)).queuedMessages === 1);
  answerFirstCall();

  const answer = 'You asked for beta.txt: it says beta.';
  await waitFor('the steering command to exit 0', async () => (await steer.exitStatus()) === 0).catch(async (error: Error) => {
    // Whether the steering process still runs, and where it waits (a busy machine once kept it from exiting).
    const processes = await promisify(execFile)('ps', ['-eo', 'pid,stat,etime,wchan:24,args']).then(({ stdout }) =>
      stdout
        .split('\n')
        .filter((line) => line.includes(' steer ') || line.includes('defunct'))
        .join('\n'),
    );
    throw new Error(
      `${error.message}\n--- agent steer ---\n${await steer.screen()}\n--- agent chat ---\n${await chat.screen()}\n--- ps ---\n${processes}`,
    );
  });
  const steered = await steer.screen();
  expect(steered).toContain('steering the turn in progress; its reply follows once it ends');
  expect(steered).toContain('(2 model call(s)');
  expect(steered.split(answer)).toHaveLength(2);

  await waitFor('the answer in the chat', async () => (await chat.screen()).includes(answer));
  const watched = await chat.screen();
  // Where the turn took it: after the tool's result, before the model call that answered.
  const lines = watched.split('\n');
  const taken = lines.findIndex((line) =>
    line.includes('↪ steering taken after model call 1: Not that one: read beta.txt instead.'),
  );
  expect(taken).toBeGreaterThan(lines.findIndex((line) => line.includes('✓ read_file')));
  expect(taken).toBeLessThan(lines.findIndex((line) => line.includes(answer)));
  expect(watched.split(answer)).toHaveLength(2);
  // A chat's follower polls the run's stream all session long, and its polls hold no listener once answered.
  expect(watched).not.toContain('MaxListenersExceededWarning');

  // What the model was sent after the tool round: the result, then the steering message.
  expect(bed.server.requests[1].body.messages.slice(-2)).toEqual([
    { role: 'tool', tool_call_id: 'call_a', content: 'alpha' },
    { role: 'user', content: 'Not that one: read beta.txt instead.' },
  ]);
  await chat.typeLine('/end');
  // What a person sees: the session ended (the process then closes its worker, which a busy machine takes its time over).
  await waitFor('the chat to end the session', async () => new RegExp(`session ${workflowId} ended`).test(await chat.screen()));
});
