import type { ReceivedRequest } from '../support/fake-model-server';
import { openaiReply, type FakeStep } from '../support/fake-model-server';
import type { EvalCase } from '../../core/eval-types';

// What the eval tests share: cases recorded by hand, and a fake model that answers each candidate and the judge by
// what it was sent (the system prompt names the candidate; a judge's request asks for its verdict's JSON schema).

export const refundCase: EvalCase = {
  id: 'refund',
  source: { kind: 'run', workflowId: 'agent-recorded', runId: 'run-1', messageIndex: 2 },
  context: [
    { role: 'user', content: 'Hello' },
    { role: 'assistant', content: 'Hi, how can I help?', toolCalls: [] },
  ],
  prompt: 'Can I get a refund?',
  recorded: { answer: 'Sorry, I cannot help with that.', toolCalls: [], usage: { inputTokens: 90, outputTokens: 10 } },
  toolFixtures: [
    { tool: 'read_file', arguments: '{"path":"policy.txt"}', content: 'RECORDED: refunds within 30 days', isError: false },
  ],
};

export const hoursCase: EvalCase = {
  id: 'hours',
  source: { kind: 'dataset', file: 'cases.jsonl', line: 2 },
  context: [],
  prompt: 'When are you open?',
  recorded: { answer: 'We open at 9, and refund on request.', toolCalls: [] },
  toolFixtures: [],
};

export function numberedCases(count: number): EvalCase[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `case-${index + 1}`,
    source: { kind: 'dataset' as const, file: 'cases.jsonl', line: index + 1 },
    context: [],
    prompt: `Question ${index + 1}: is a refund possible?`,
    toolFixtures: [],
  }));
}

export function systemOf(request: ReceivedRequest): string {
  return request.body.messages?.find((message: { role: string }) => message.role === 'system')?.content ?? '';
}

export function lastUserOf(request: ReceivedRequest): string {
  const users = (request.body.messages ?? []).filter((message: { role: string }) => message.role === 'user');
  return users.at(-1)?.content ?? '';
}

export function isJudge(request: ReceivedRequest): boolean {
  return request.body.response_format !== undefined;
}

/**
 * The fake model of these tests: `Look it up.` reads policy.txt first and then answers with what it read; any other
 * candidate answers the question in capitals with "refund"; a judge scores 1 when the answer it judges mentions
 * "30 days", else 0.2.
 */
export function evalResponder(request: ReceivedRequest): FakeStep {
  if (isJudge(request)) {
    const prompt = lastUserOf(request);
    const good = /<answer>[^]*30 days[^]*<\/answer>/.test(prompt);
    return openaiReply({ content: JSON.stringify({ score: good ? 1 : 0.2, reason: good ? 'names the policy' : 'vague' }) });
  }
  const messages = request.body.messages as Array<{ role: string; content: string }>;
  if (systemOf(request) === 'Look it up.') {
    const last = messages.at(-1)!;
    if (last.role === 'tool') return openaiReply({ content: `Per policy: ${last.content}` });
    return openaiReply({ toolCalls: [{ id: `call_${messages.length}`, name: 'read_file', arguments: { path: 'policy.txt' } }] });
  }
  if (systemOf(request) === 'Say no.') return openaiReply({ content: 'No.' });
  return openaiReply({ content: `${lastUserOf(request).toUpperCase()} REFUND MAYBE.` });
}

/** Requests per (candidate's system prompt or `judge`, question): what each pair cost at the model. */
export function requestsPerPair(requests: ReceivedRequest[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const request of requests) {
    const who = isJudge(request) ? 'judge' : systemOf(request);
    const question = isJudge(request) ? /<question>\n"(.*)"/.exec(lastUserOf(request))?.[1] : lastUserOf(request);
    const key = `${who} | ${question}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
