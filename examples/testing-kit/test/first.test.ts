import { createAgentTestEnv, scriptedModel } from 'durable-agent/testing';
import { researcher } from '../src/agents';

test('the researcher answers from its tool', async () => {
  const model = scriptedModel([
    { toolCalls: [{ name: 'lookup_order', arguments: { id: '7' } }] }, // the first model call asks for the tool
    'Order 7 has shipped.', // the second answers
  ]);
  const env = await createAgentTestEnv({ agents: [researcher], model });
  try {
    const result = await env.run('Where is order 7?');

    expect(result.answer).toBe('Order 7 has shipped.');
    expect(model.requests[1].messages.at(-1)).toMatchObject({ role: 'tool', toolName: 'lookup_order' });
  } finally {
    await env.shutdown();
  }
});
