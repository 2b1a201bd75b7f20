// The app's agents: support answers customers, asks the researcher (a subagent) for the facts, and refunds orders,
// each refund once a person approves it.
import { defineAgent, defineTool } from 'durable-agent';
import { z } from 'zod';
import { refund } from './payments';

const orders: Record<string, string> = { '7': 'shipped', '8': 'lost in transit' };

export const lookupOrder = defineTool({
  name: 'lookup_order',
  description: 'Looks an order up by its id.',
  input: z.object({ id: z.string() }),
  async handler({ id }) {
    return JSON.stringify({ id, status: orders[id] ?? 'unknown' });
  },
});

export const refundOrder = defineTool({
  name: 'refund_order',
  description: 'Refunds an order in full.',
  input: z.object({ id: z.string() }),
  // Money leaves the company: a person approves every refund.
  needsApproval: () => true,
  async handler({ id }) {
    await refund(id);
    return `order ${id} refunded`;
  },
});

export const researcher = defineAgent({
  name: 'researcher',
  description: 'Looks orders up and reports what it finds.',
  instructions: 'You are the researcher. Look the orders up and report the facts, briefly.',
  model: 'anthropic:claude-haiku-4-5',
  tools: [lookupOrder],
});

export const support = defineAgent({
  name: 'support',
  description: 'Answers customers about their orders.',
  instructions: 'You are support. Ask the researcher for the facts. Refund an order only when the customer asks.',
  model: 'openai:gpt-4o-mini',
  tools: [refundOrder],
  subagents: [researcher],
});

export const agents = [support];
