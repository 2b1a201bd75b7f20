import { ApplicationFailure } from '@temporalio/common';
import { classifyProviderError } from '../../activities/model/classify-error';
import { defineAgent } from '../../agents/define-agent';
import type { ProviderCall } from '../../providers/provider-call';
import { failure, scriptedModel } from '../../testing';
import { answeredBy } from '../../testing/scripted-agents';

// The scripted model of durable-agent/testing, called as the model activity calls a provider.

function call(model: string, content = 'Hi'): ProviderCall {
  return {
    model,
    messages: [{ role: 'user', content }],
    tools: [],
    toolChoice: 'auto',
    modelSettings: { temperature: 0.5 },
    env: {},
    signal: new AbortController().signal,
    timeoutMs: 1000,
  };
}

it('records who asked and the model they name, from the id the test env gives each agent', async () => {
  const model = scriptedModel(['Hello']);
  const response = await model.provider.call(call('support@openai:gpt-4o-mini'));
  expect(response).toEqual({
    message: { role: 'assistant', content: 'Hello', toolCalls: [] },
    finishReason: 'stop',
    usage: { inputTokens: 10, outputTokens: 5 },
  });
  expect(model.requests).toEqual([
    {
      agent: 'support',
      model: 'openai:gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [],
      toolChoice: 'auto',
      modelSettings: { temperature: 0.5 },
    },
  ]);
});

it('sends tool arguments given as objects as JSON and strings as they are, and marks thinking as its own', async () => {
  const model = scriptedModel([
    {
      thinking: 'hmm',
      toolCalls: [
        { name: 'a', arguments: { x: 1 } },
        { name: 'b', arguments: '{"broken' },
      ],
    },
  ]);
  const { message, finishReason } = await model.provider.call(call('any-model'));
  expect(message.toolCalls).toEqual([
    { id: 'call_1', name: 'a', arguments: '{"x":1}' },
    { id: 'call_2', name: 'b', arguments: '{"broken' },
  ]);
  expect(message.thinking).toEqual([{ type: 'thinking', provider: 'scripted', model: 'any-model', text: 'hmm' }]);
  expect(finishReason).toBe('tool_calls');
  expect(model.requests[0].agent).toBeUndefined();
});

it('fails as a provider SDK fails: the model activity retries a retryable failure (Retry-After kept) and not a rejection', async () => {
  const model = scriptedModel([failure.retryable('busy', { status: 429, retryAfterMs: 250 }), failure.rejected('bad', 422)]);
  const retryable = classifyProviderError(await model.provider.call(call('m')).catch((error) => error), 'scripted');
  expect(retryable).toMatchObject({ nonRetryable: false, nextRetryDelay: 250, message: 'scripted returned HTTP 429: busy' });
  const rejected = classifyProviderError(await model.provider.call(call('m')).catch((error) => error), 'scripted');
  expect(rejected).toMatchObject({ nonRetryable: true, message: 'scripted rejected the request (HTTP 422): bad' });
});

it("fails at once, never retried, when the script runs out or the test's function throws", async () => {
  const model = scriptedModel([
    () => {
      throw new Error('oops');
    },
  ]);
  const thrown = await model.provider.call(call('m')).catch((error) => error);
  expect(thrown).toBeInstanceOf(ApplicationFailure);
  expect(thrown).toMatchObject({ nonRetryable: true, message: "the script's function threw: oops" });
  const exhausted = await model.provider.call(call('m', 'again')).catch((error) => error);
  expect(exhausted).toMatchObject({
    nonRetryable: true,
    message: 'the scripted model has no reply for request 2; its last message: user: "again"',
  });
});

it('ends as the call was ended when its function gives up on a cancelled call, not as a mistake in the script', async () => {
  const cancellation = new AbortController();
  const cancelled = new Error('the activity was cancelled');
  const model = scriptedModel([
    () => {
      cancellation.abort();
      throw cancelled;
    },
  ]);
  expect(await model.provider.call({ ...call('m'), signal: cancellation.signal }).catch((error) => error)).toBe(cancelled);
});

it('answers each agent from its own list, and refuses a model id that names no agent', async () => {
  const model = scriptedModel({ a: ['from a'], b: ['from b'] });
  expect((await model.provider.call(call('b@x:y'))).message.content).toBe('from b');
  expect((await model.provider.call(call('a@x:y'))).message.content).toBe('from a');
  await expect(model.provider.call(call('x:y'))).rejects.toThrow(
    'a script by agent needs to know the agent: model "x:y" names none',
  );
});

it('answeredBy copies agents onto the scripted model, one copy of a subagent however often it is named, the originals unchanged', () => {
  const researcher = defineAgent({ name: 'researcher', description: 'r', model: 'anthropic:claude-haiku-4-5' });
  const support = defineAgent({ name: 'support', description: 's', model: 'openai:gpt-4o-mini', subagents: [researcher] });
  const billing = defineAgent({
    name: 'billing',
    description: 'b',
    model: 'openai:gpt-4o',
    handoffs: ['support'],
    subagents: [researcher],
  });
  const [supportCopy, billingCopy] = answeredBy('scripted', [support, billing]);
  expect(supportCopy.model).toBe('scripted:support@openai:gpt-4o-mini');
  expect(supportCopy.subagents[0]).toBe(billingCopy.subagents[0]);
  expect((supportCopy.subagents[0] as typeof researcher).model).toBe('scripted:researcher@anthropic:claude-haiku-4-5');
  expect(billingCopy.handoffs).toEqual(['support']);
  expect(support.model).toBe('openai:gpt-4o-mini');
  expect(researcher.model).toBe('anthropic:claude-haiku-4-5');
});
