// The app's agents: an assistant that asks a researcher (a subagent, run as a child workflow) and
// hands billing questions over to a billing agent (a handoff: the conversation goes on under it).
import { defineAgent, defineTool } from 'durable-agent';
import { z } from 'zod';

const lookupInvoice = defineTool({
  name: 'lookup_invoice',
  description: 'Look an invoice up by its number.',
  input: z.object({ number: z.string() }),
  async handler({ number }) {
    return JSON.stringify({ number, status: 'paid', amount: '42.00 EUR' });
  },
});

export const researcher = defineAgent({
  name: 'researcher',
  description: 'Reads files in the workspace and reports what they say.',
  instructions: 'You are the researcher. Read the files you need and report the facts, briefly.',
  model: 'anthropic:claude-haiku-4-5',
  tools: ['read_file', 'list_directory'],
});

export const billing = defineAgent({
  name: 'billing',
  description: 'Answers questions about invoices and payments.',
  instructions: 'You are billing. Look invoices up before you answer.',
  model: 'openai:gpt-4o-mini',
  tools: [lookupInvoice],
});

export const assistant = defineAgent({
  name: 'assistant',
  description: 'Answers questions, with a researcher to ask and billing to hand invoices to.',
  instructions: 'You are the assistant. Ask the researcher about files; hand invoice questions to billing.',
  model: 'openai:gpt-4o-mini',
  subagents: [researcher],
  handoffs: [billing],
});

export const agents = [assistant];
