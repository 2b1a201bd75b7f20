import { exampleApp } from '../support/example-app';
import { ensureTestServer } from '../support/test-server/find-test-server';

// examples/testing-kit is an app that tests its own agents with durable-agent/testing, the worked example of
// docs/testing.md: installed as a packed copy of the library (as from a registry), it runs its own jest tests (a tool,
// a subagent, approvals approved, denied and timed out under time skipping, a replay of its recorded runs).

const app = exampleApp('testing-kit');
jest.setTimeout(600_000);

beforeAll(() => app.install());

it('installs as a library, type-checks, and passes its own tests of its agents on the time-skipping test server', async () => {
  expect(await app.typeCheck()).toEqual({ code: 0, output: '' });

  // The SDK would download the test server; this machine has no internet, so it gets the one fetched from Maven Central.
  const run = await app.npm(['test', '--', '--ci', '--verbose'], {
    TEMPORAL_TEST_SERVER_PATH: await ensureTestServer(),
  });
  expect({ code: run.code, summary: /^Tests: .*$/m.exec(run.stderr)?.[0] }).toEqual({
    code: 0,
    summary: 'Tests:       7 passed, 7 total',
  });
  // Each test of the doc's worked example ran, by name.
  for (const name of [
    'the researcher answers from its tool',
    'the researcher looks the order up with its tool and answers from what the tool returned',
    'support asks the researcher, a subagent with a script of its own',
    'a refund waits for a person, and runs once approved',
    'a denied refund does not run, and the model is told why',
    'a refund no one approves times out after an hour, at once under time skipping, and does not run',
    'the recorded runs replay against this code',
  ])
    expect(run.stderr).toContain(`✓ ${name}`);
});
