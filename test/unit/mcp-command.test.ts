import { main } from '../../cli/main';
import { capturedOutput } from '../support/captured-output';

// `agent mcp`'s refusals, before it connects to anything: exit 2 with the reason.

const addressBefore = process.env.TEMPORAL_ADDRESS;
beforeAll(() => {
  // An address that nothing serves: a refusal must come before any connection is tried.
  process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';
});
afterAll(() => {
  if (addressBefore === undefined) delete process.env.TEMPORAL_ADDRESS;
  else process.env.TEMPORAL_ADDRESS = addressBefore;
});

it.each([
  [['--http', '--host', '0.0.0.0'], /would listen on 0\.0\.0\.0 with every request taken as the one user "local"/],
  [['--port', '3001'], /--port is a flag of --http/],
  [['--max-body-bytes', '8192'], /--max-body-bytes is a flag of --http/],
  [['--http', '--max-body-bytes', '100'], /--max-body-bytes must be at least 1024/],
  [['--http', '--max-body-bytes', 'lots'], /--max-body-bytes/],
  [['--agents', 'nosuch'], /--agents: unknown nosuch; registered agents: default/],
  [['a prompt'], /mcp takes no prompt/],
])('refuses agent mcp %j with exit 2', async (args, message) => {
  const output = capturedOutput();
  expect(await main(['mcp', ...args], output)).toBe(2);
  expect(output.stderr).toMatch(message);
  // Over stdio, stdout is the protocol's: nothing else is ever written there.
  expect(output.stdout).toBe('');
});
