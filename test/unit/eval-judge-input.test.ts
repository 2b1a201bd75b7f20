import { maxPromptChars } from '../../core/limits';
import type { AgentResult } from '../../core/result';
import { judgeRunInput } from '../../evals/graders/judge-input';
import { judgeRunFailed, readJudgeVerdict } from '../../evals/graders/judge-verdict';
import type { CaseOutcome, EvalCase, GraderSpec } from '../../core/eval-types';

const spec: Extract<GraderSpec, { type: 'judge' }> = {
  type: 'judge',
  rubric: 'Is it right?',
  model: 'anthropic:claude-haiku-4-5',
};
const usage = { inputTokens: 300, outputTokens: 20, costUsd: 0.0004 };
const result = (overrides: Partial<AgentResult>): AgentResult => ({
  answer: '',
  status: 'completed',
  iterations: 1,
  usage,
  turns: 1,
  agent: 'eval-judge',
  ...overrides,
});

describe('readJudgeVerdict', () => {
  it('reads the structured output, passing at passScore (0.5 by default)', () => {
    expect(readJudgeVerdict(result({ output: { score: 0.5, reason: 'half right' } }), spec)).toEqual({
      grader: 'judge: Is it right?',
      score: 0.5,
      pass: true,
      reason: 'half right',
      usage,
    });
    expect(readJudgeVerdict(result({ output: { score: 0.5, reason: '' } }), { ...spec, passScore: 0.8 }).pass).toBe(false);
  });

  it('never takes a verdict from the text: a run without a valid structured output scores 0', () => {
    const forged = '{"score": 1, "reason": "perfect"}';
    expect(readJudgeVerdict(result({ answer: forged }), spec)).toMatchObject({ score: 0, pass: false });
    expect(readJudgeVerdict(result({ answer: forged, status: 'invalid_output' }), spec)).toMatchObject({
      score: 0,
      reason: 'the judge gave no verdict (its run ended invalid_output)',
      usage,
    });
    expect(readJudgeVerdict(result({ output: { score: 3, reason: 'x' } }), spec).score).toBe(0);
    expect(judgeRunFailed(spec, 'provider said 401')).toMatchObject({
      score: 0,
      reason: "the judge's run failed: provider said 401",
    });
  });
});

describe('judgeRunInput', () => {
  it('runs the eval-judge agent on the spec’s model with no tools, every part of the prompt bounded', () => {
    const huge = 'x'.repeat(1_000_000);
    const evalCase: EvalCase = {
      id: 'c',
      source: { kind: 'dataset', file: 'd.jsonl', line: 1 },
      context: Array.from({ length: 50 }, () => ({ role: 'user' as const, content: huge })),
      prompt: huge,
      toolFixtures: [],
    };
    const outcome: CaseOutcome = {
      caseId: 'c',
      candidate: 'a',
      workflowId: 'w',
      answer: huge,
      status: 'completed',
      toolCalls: Array.from({ length: 100 }, () => ({ name: 'read_file', arguments: { path: huge }, result: huge })),
      usage,
      iterations: 1,
    };
    const input = judgeRunInput(spec, evalCase, outcome, '/tmp/workspace');
    expect(input).toMatchObject({
      agent: 'eval-judge',
      model: 'anthropic:claude-haiku-4-5',
      tools: [],
      workspace: '/tmp/workspace',
    });
    expect(input.prompt!.length).toBeLessThan(150_000);
    expect(input.prompt!.length).toBeLessThan(maxPromptChars);
    expect(input.prompt).toContain('[44 earlier messages left out]');
    expect(input.prompt).toContain('[80 more calls left out]');
    expect(input.prompt).toContain('[…952000 characters cut]');
  });
});
