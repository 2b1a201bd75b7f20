// Your agents and their tools: the worker registers them (`npm run worker`), and so does `npm run agent`, which runs
// them with a worker of its own (both name this file in AGENT_DEFINITIONS: see package.json's scripts).
import { defineAgent, defineTool } from 'durable-agent';
import { z } from 'zod';

/** The orders refunded so far: a stand-in for your payment system, kept in memory so that the test can look. */
export const refunds: string[] = [];

export const refundOrder = defineTool({
  name: 'refund_order',
  description: 'Refunds an order in full.',
  input: z.object({ id: z.string() }),
  // Money leaves the company: a person approves every refund before it runs.
  needsApproval: () => true,
  async handler({ id }) {
    refunds.push(id);
    return `order ${id} refunded`;
  },
});

export const support = defineAgent({
  name: 'support',
  description: 'Answers customers, and refunds the orders they ask to refund.',
  instructions: 'You are support. Answer briefly. Refund an order only when the customer asks for it.',
  model: 'openai:gpt-4o-mini',
  tools: [refundOrder],
});

export const agents = [support];
