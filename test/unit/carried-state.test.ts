import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { carriedStateVersion, readCarriedState, type CarriedState } from '../../core/carried-state';
import { checkResolvedInput } from '../../core/input-check';
import { resolveAgentInput } from '../../core/resolve-input';
import { Inbox } from '../../workflows/inbox';
import { carry, initialState } from '../../workflows/state';
import type { RunStatus } from '../../workflows/run-status';
import { RoundLedger } from '../../workflows/round-ledger';
import type { ToolCall } from '../../core/messages';

// What a run carries to its next run, as every earlier build wrote it (test/fixtures/carried-state/historical/, taken
// from recorded runs: its README says which), must be read by this build, whole: a session in flight continues as new
// onto new code. And what this build writes must come back whole from the workflow's own input check.

const directory = path.join(__dirname, '..', 'fixtures', 'carried-state', 'historical');
const fixtures = readdirSync(directory)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => ({
    file,
    version: Number(/^v(\d+)-/.exec(file)?.[1]),
    state: JSON.parse(readFileSync(path.join(directory, file), 'utf8')) as Record<string, unknown>,
  }));

/** A session's input as the client resolves it, carrying `carried` as a run continuing as new gives it. */
function continuedInput(carried: unknown): Record<string, unknown> {
  const check = resolveAgentInput({ model: 'anthropic:claude-sonnet-4-5', workspace: '/tmp/project', session: {} });
  if (!check.ok) throw new Error(check.problems);
  return { ...check.input, carried };
}

function readByTheWorkflow(carried: unknown): CarriedState {
  const check = checkResolvedInput(structuredClone(continuedInput(carried)));
  if (!check.ok) throw new Error(check.problems);
  return check.input.carried!;
}

it('has a fixture of every version up to the current one, named v<version>-…', () => {
  expect(fixtures.every((fixture) => Number.isInteger(fixture.version))).toBe(true);
  const versions = new Set(fixtures.map((fixture) => fixture.version));
  for (let version = 1; version <= carriedStateVersion; version++) expect(versions).toContain(version);
  // A fixture states its version as the build that wrote it did: version 1 had no field for it.
  for (const { version, state } of fixtures) expect(state.version).toBe(version === 1 ? undefined : version);
});

describe.each(fixtures.map((fixture) => [fixture.file, fixture] as const))('%s', (_file, { state }) => {
  it('is read into the current version, keeping everything it holds but what that version left behind', () => {
    const read = readByTheWorkflow(state);
    const { progressOffset: _progressOffset, version: _version, ...kept } = state;
    expect(read).toEqual({ ...kept, version: carriedStateVersion });
    expect(readCarriedState(structuredClone(state))).toEqual({ ok: true, state: read });
  });

  it('starts the next run where the last one stopped: its conversation, transcript and agent', () => {
    const check = checkResolvedInput(continuedInput(state));
    if (!check.ok) throw new Error(check.problems);
    expect(initialState(check.input)).toMatchObject({
      messages: state.messages,
      transcript: state.transcript,
      lastAnswer: state.lastAnswer,
      agent: state.agent,
    });
  });
});

describe('usage, carried whole', () => {
  const cached = fixtures.filter(({ state }) => JSON.stringify(state.usage).includes('cacheReadTokens'));

  it('keeps the prompt-cache counts a run of the build before wrote (its next run dropped them)', () => {
    expect(cached.map(({ file }) => file)).not.toEqual([]);
    for (const { state } of cached) {
      const read = readByTheWorkflow(state);
      expect(read.usage).toEqual(state.usage);
      expect(read.usage.cacheReadTokens).toBeGreaterThan(0);
      if (state.turn) expect(read.turn!.usage).toEqual((state.turn as { usage: unknown }).usage);
    }
  });

  it('keeps every count of what this build writes, one added later too, through the workflow input check', () => {
    const usage = {
      inputTokens: 5000,
      outputTokens: 40,
      costUsd: 0.0042,
      unpricedCalls: 1,
      reasoningTokens: 7,
      cacheReadTokens: 4000,
      cacheWriteTokens: 900,
      cacheWrite1hTokens: 300,
      // A count a later feature adds: nothing has to list it for it to cross the boundary.
      someFutureTokens: 11,
    };
    const input = continuedInput(undefined) as unknown as Parameters<typeof initialState>[0];
    const state = initialState({ ...input, prompt: 'go' });
    const status = { usage, iteration: 3, turns: 2 } as unknown as RunStatus;
    const turn = {
      iteration: 1,
      agentIterations: 1,
      handoffs: 0,
      outputRetries: 0,
      usage,
      checkpoint: { length: 0, transcript: { length: 0 } },
    };
    const written = JSON.parse(JSON.stringify(carry(state, status, { turn })));
    expect(written.version).toBe(carriedStateVersion);
    const read = readByTheWorkflow(written);
    expect(read).toEqual(written);
    expect(read.usage).toEqual(usage);
    expect(read.turn!.usage).toEqual(usage);
  });
});

describe('what is refused, and what waits for a newer build', () => {
  const [{ state }] = fixtures;

  it("refuses a carried state missing what the run cannot do without, naming it (a caller's hand-made one)", () => {
    const check = checkResolvedInput(continuedInput({ ...state, messages: 'none', usage: { inputTokens: -1 } }));
    expect(check).toEqual({
      ok: false,
      problems: 'carried: messages: expected an array of messages; usage: expected a usage with inputTokens and outputTokens',
    });
    expect(checkResolvedInput(continuedInput('text'))).toEqual({ ok: false, problems: 'carried: expected object, got string' });
  });

  it('fails the workflow task on a version newer than this build, so the run waits for a build that reads it', () => {
    expect(() => checkResolvedInput(continuedInput({ ...state, version: carriedStateVersion + 1 }))).toThrow(
      `this build reads carried state up to version ${carriedStateVersion}, and the run carries version ${carriedStateVersion + 1}`,
    );
  });
});

it('leaves behind what runs before 0.2 carried of their progress (its events too), as version 1 said it would', () => {
  const [{ state }] = fixtures;
  const read = readByTheWorkflow({ ...state, progressOffset: 3, progress: [{ kind: 'model_call', iteration: 1 }] });
  expect(read).not.toHaveProperty('progressOffset');
  expect(read).not.toHaveProperty('progress');
});

it('hands a steering message that waited at continue-as-new to the next run, whose turn takes it', () => {
  const fixture = fixtures.find(({ file }) => file === 'v2-steering-waiting-mid-turn.json');
  const read = readByTheWorkflow(fixture!.state);
  const inbox = new Inbox(read.inbox);
  // The turn in progress (ticket 0's) goes on in the next run; the steering message waits for its next iteration.
  expect(inbox.current).toBe(0);
  expect(inbox.hasWaiting()).toBe(true);
  expect(inbox.knows(1)).toBe(true);
  expect(inbox.takeSteering()).toEqual([{ ticket: 1, content: 'Then say done' }]);
  expect(inbox.hasWaiting()).toBe(false);
  // Taken, it joined the turn: the reply of ticket 0's turn is its reply, carried as joined if the run hands over again.
  expect(inbox.carry()).toMatchObject({ current: 0, joined: [1] });
  expect(inbox.carry()).not.toHaveProperty('steering');
});

it('hands a sleep that waited at continue-as-new to the next run: approved already, to the same deadline', () => {
  const fixture = fixtures.find(({ file }) => file === 'v2-sleep-waiting-mid-turn.json');
  const round = readByTheWorkflow(fixture!.state).turn!.openRound!;
  const ledger = new RoundLedger(round.needsApproval, ['sleep'], round.descriptions, round, {
    policy: undefined,
    paths: () => [],
    workspace: '/workspace',
  });
  const nap = (fixture!.state.messages as Array<{ toolCalls?: ToolCall[] }>)[1].toolCalls![0];
  // The run's rules would have a person approve every sleep; this one began its wait, so it was approved before.
  expect(ledger.needsApproval(nap)).toBe(false);
  expect(ledger.carriedWait('nap')).toEqual({
    callId: 'nap',
    tool: 'sleep',
    reason: 'check the build again',
    startedAt: '2026-12-02T17:44:58.194Z',
    until: '2026-12-05T17:44:58.194Z',
  });
  expect(ledger.finished.get('forever')).toMatchObject({ isError: true });
});
