import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { loadDefinitions } from '../../agents/load-definitions';
import { defineAgent } from '../../agents/define-agent';
import { defineGuardrail } from '../../agents/define-guardrail';
import { createAgentRegistry } from '../../agents/registry';
import { createCheckGuardrail } from '../../activities/guardrails/check-guardrail';
import { failedClosed, maxGuardrailReasonChars, readVerdict } from '../../core/guardrails';
import { statusText } from '../../cli/event-lines';
import { runToolResult } from '../../serve/mcp/call-result';

const pass = () => ({ tripped: false });
const agentWith = (guardrails: Parameters<typeof defineAgent>[0]['guardrails'], name = 'guarded') =>
  defineAgent({ name, description: 'an agent', model: 'openai:gpt-4o-mini', guardrails });

describe('defineGuardrail', () => {
  it('refuses what could never run: no check and no agent, both, a bad name, output in parallel', () => {
    expect(() => defineGuardrail({ name: 'g', checks: 'input' })).toThrow('either a check function (code) or an agent');
    expect(() => defineGuardrail({ name: 'g', checks: 'input', check: pass, agent: 'judge' })).toThrow('not both');
    expect(() => defineGuardrail({ name: 'two words', checks: 'input', check: pass })).toThrow('the name must match');
    expect(() => defineGuardrail({ name: 'g', checks: 'both' as never, check: pass })).toThrow(
      "checks must be 'input', 'output' or 'tool_call'",
    );
    expect(() => defineGuardrail({ name: 'g', checks: 'output', check: pass, onTrip: 'end_turn' })).toThrow(
      'onTrip is for a tool_call guardrail only',
    );
    expect(() => defineGuardrail({ name: 'g', checks: 'tool_call', check: pass, onTrip: 'stop' as never })).toThrow(
      "onTrip must be 'refuse_call' or 'end_turn'",
    );
    expect(() => defineGuardrail({ name: 'g', checks: 'tool_call', check: pass, runInParallel: true })).toThrow(
      'only an input guardrail can run in parallel',
    );
    expect(() => defineGuardrail({ name: 'g', checks: 'output', check: pass, runInParallel: true })).toThrow(
      'only an input guardrail can run in parallel',
    );
    expect(() => defineGuardrail({ name: 'g', checks: 'input', check: pass, activity: { maximumAttempts: 0 } })).toThrow(
      'maximumAttempts',
    );
  });
});

describe('guardrails in the registry', () => {
  const judge = defineAgent({
    name: 'judge',
    description: 'judges',
    model: 'openai:gpt-4o-mini',
    outputSchema: z.object({ tripped: z.boolean(), reason: z.string() }),
  });

  it('records each guardrail in the agent spec: a code one with its activity, a model one with its agent', () => {
    const code = defineGuardrail({ name: 'code', checks: 'input', check: pass, activity: { timeout: '5s' } });
    const model = defineGuardrail({ name: 'model', checks: 'output', agent: judge });
    const calls = defineGuardrail({ name: 'calls', checks: 'tool_call', check: pass });
    const callsJudged = defineGuardrail({ name: 'calls-judged', checks: 'tool_call', agent: judge, onTrip: 'end_turn' });
    const registry = createAgentRegistry({ agents: [agentWith([code, model, calls, callsJudged])] });
    expect(registry.spec('guarded').guardrails).toEqual([
      { name: 'code', checks: 'input', timeout: '5s', maximumAttempts: 3 },
      { name: 'model', checks: 'output', agent: 'judge' },
      // A tool-call guardrail records what a trip does: refuse the call unless it says to end the turn.
      { name: 'calls', checks: 'tool_call', onTrip: 'refuse_call', timeout: '30s', maximumAttempts: 3 },
      { name: 'calls-judged', checks: 'tool_call', onTrip: 'end_turn', agent: 'judge' },
    ]);
    expect(registry.agents.has('judge')).toBe(true);
    expect(registry.spec('judge').guardrails).toBeUndefined();
  });

  it('refuses an unknown guardrail, and a model guardrail whose agent gives no verdict', () => {
    expect(() => createAgentRegistry({ agents: [agentWith(['missing'])] })).toThrow(
      'agent "guarded": unknown guardrail "missing"',
    );
    const plain = defineAgent({ name: 'plain', description: 'no schema', model: 'openai:gpt-4o-mini' });
    const vague = defineGuardrail({ name: 'vague', checks: 'input', agent: plain });
    expect(() => createAgentRegistry({ agents: [agentWith([vague])] })).toThrow(
      'needs an outputSchema with a required boolean "tripped"',
    );
    const twin = defineGuardrail({ name: 'code', checks: 'input', check: pass });
    const other = defineGuardrail({ name: 'code', checks: 'input', check: pass });
    expect(() => createAgentRegistry({ agents: [agentWith([twin]), agentWith([other], 'second')] })).toThrow(
      'two different guardrails are named "code"',
    );
  });
});

describe('a definitions module (AGENT_DEFINITIONS)', () => {
  /** A module of its own, as a user writes one (JavaScript, so that Node loads it as it is). */
  const moduleExporting = (body: string) => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'guarded-')), 'definitions.js');
    const defineGuardrailPath = JSON.stringify(path.join(__dirname, '..', '..', 'agents', 'define-guardrail'));
    writeFileSync(file, `const { defineGuardrail } = require(${defineGuardrailPath});\n${body}\n`);
    return file;
  };

  it('registers its exported guardrails, and refuses a value that is not one', () => {
    const good = moduleExporting(
      "exports.guardrails = { polite: defineGuardrail({ name: 'polite', checks: 'input', check: () => ({ tripped: false }) }) };",
    );
    const { guardrails } = loadDefinitions({ AGENT_DEFINITIONS: good }, '/');
    expect(guardrails?.map((guardrail) => guardrail.name)).toEqual(['polite']);
    expect(createAgentRegistry({ guardrails }).guardrails.has('polite')).toBe(true);
    const bad = moduleExporting("exports.guardrails = [{ name: 'fake', check() {} }];");
    expect(() => loadDefinitions({ AGENT_DEFINITIONS: bad }, '/')).toThrow('its guardrails must be made with defineGuardrail');
  });
});

describe('verdicts', () => {
  it('reads a verdict; anything but { tripped: boolean } trips, and a long reason is bounded', () => {
    expect(readVerdict('g', { tripped: false })).toBeUndefined();
    expect(readVerdict('g', { tripped: true, reason: ' off topic ' })).toEqual({ name: 'g', reason: 'off topic' });
    expect(readVerdict('g', { tripped: true })).toEqual({ name: 'g', reason: 'no reason given' });
    for (const broken of [undefined, null, 'no', { tripped: 'false' }])
      expect(readVerdict('g', broken)?.reason).toContain('gave no verdict');
    expect(readVerdict('g', { tripped: true, reason: 'x'.repeat(5_000) })!.reason).toHaveLength(maxGuardrailReasonChars + 1);
    expect(failedClosed('g', 'boom').reason).toBe('guardrail "g" failed, so it counts as tripped: boom');
  });

  it('the activity runs the registered check by name, and refuses a name it does not know (not retried)', async () => {
    const seen: unknown[] = [];
    const guardrail = defineGuardrail({
      name: 'seen',
      checks: 'input',
      check: (input) => {
        seen.push(input);
        return { tripped: true, reason: 'stop' };
      },
    });
    const checkGuardrail = createCheckGuardrail({ guardrails: new Map([['seen', guardrail]]) });
    const request = { agent: 'a', checks: 'input' as const, text: 'hi' };
    expect(await checkGuardrail({ guardrail: 'seen', ...request })).toEqual({ name: 'seen', reason: 'stop' });
    expect(seen).toEqual([{ text: 'hi', agent: 'a', checks: 'input', steering: false }]);
    await expect(checkGuardrail({ guardrail: 'other', ...request })).rejects.toMatchObject({ nonRetryable: true });
  });

  it('a reason a model wrote is shown escaped', () => {
    expect(statusText('guardrail_tripped', { name: 'g', reason: 'bad\u001b[2Jthing' })).toBe(
      'guardrail_tripped (guardrail "g": bad\\u{001B}[2Jthing)',
    );
    expect(statusText('completed')).toBe('completed');
  });
});

it("an MCP client is told which guardrail stopped the run, and why, apart from the model's text", () => {
  const guardrail = { name: 'no-passwords', reason: 'not here' };
  const result = runToolResult(
    'run-1',
    {
      answer: '',
      status: 'guardrail_tripped',
      iterations: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
      turns: 1,
      agent: 'a',
      guardrail,
    },
    false,
  );
  expect(result).toMatchObject({
    isError: true,
    content: [
      { type: 'text', text: '' },
      { type: 'text', text: '[the run run-1 ended with status guardrail_tripped (guardrail "no-passwords": not here)]' },
    ],
    _meta: { 'durable-agent/run': { status: 'guardrail_tripped', guardrail } },
  });
});
