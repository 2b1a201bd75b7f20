import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { WorkflowFailedError } from '@temporalio/client';
import { checkAgentInput, type AgentInput } from '../../agent/input';
import type { AgentResult } from '../../agent/result';
import { builtInTools } from '../../tools';
import { connect } from '../connect';
import { followProgress } from '../progress';
import { InvalidInputError, startAgent } from '../start-agent';
import { UsageError } from '../usage';
import { runLink } from '../web-ui';
import { failureMessage, invocationDirectory, type Output } from './output';

export const defaultModel = 'openai:gpt-4o-mini';

export async function runCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: attachNegativeNumbers(argv, ['--max-iterations']),
    allowPositionals: true,
    options: {
      model: { type: 'string' },
      workspace: { type: 'string' },
      'max-iterations': { type: 'string' },
      tools: { type: 'string' },
      system: { type: 'string' },
      id: { type: 'string' },
      json: { type: 'boolean', default: false },
      detach: { type: 'boolean', default: false },
    },
  });
  if (positionals.length !== 1) throw new UsageError('run takes exactly one prompt, in quotes');
  const input: AgentInput = {
    prompt: positionals[0],
    model: values.model ?? process.env.AGENT_MODEL ?? defaultModel,
    workspace: path.resolve(invocationDirectory(), values.workspace ?? '.'),
    tools: values.tools !== undefined ? values.tools.split(',').map((tool) => tool.trim()).filter(Boolean) : builtInTools.map((tool) => tool.name),
    ...(values.system !== undefined && { systemPrompt: values.system }),
    ...(values['max-iterations'] !== undefined && { maxIterations: parseInteger('--max-iterations', values['max-iterations']) }),
  };
  // Everything checkable here is checked before a server or worker starts.
  const check = checkAgentInput(input);
  if (!check.ok) throw new InvalidInputError(`invalid input: ${check.problems}`);
  if (!(await stat(input.workspace).catch(() => undefined))?.isDirectory()) {
    throw new InvalidInputError(`workspace "${input.workspace}" is not an existing directory`);
  }

  const session = await connect({ ensureWorker: !values.detach, log: output.info });
  try {
    const handle = await startAgent(session.client, input, { taskQueue: session.taskQueue, workflowId: values.id });
    const runId = handle.firstExecutionRunId;
    output.info(`started ${handle.workflowId} (run ${runId})`);
    const link = runLink(session.uiBase, session.namespace, handle.workflowId, runId);
    if (link) output.info(`Web UI: ${link}`);
    const ids = { workflowId: handle.workflowId, runId };

    if (values.detach) {
      if (session.embedded) output.info('note: the embedded server stops with this command; the run resumes the next time it starts');
      output.result(values.json ? JSON.stringify({ ...ids, status: 'running' }) : handle.workflowId);
      return 0;
    }

    const result = handle.result();
    await followProgress(handle, input.model, result, output.info);
    let outcome: AgentResult;
    try {
      outcome = await result;
    } catch (error) {
      const message = failureMessage(error);
      output.error(`run failed: ${message}`);
      if (values.json) output.result(JSON.stringify({ ...ids, status: failedStatus(error), error: message }));
      return 1;
    }
    if (outcome.status !== 'completed') output.info(`run ended with status ${outcome.status}`);
    output.info(`${outcome.iterations} iteration(s), ${outcome.usage.inputTokens} input / ${outcome.usage.outputTokens} output tokens`);
    output.result(values.json ? JSON.stringify({ ...ids, ...outcome }) : outcome.answer);
    return outcome.status === 'completed' ? 0 : 3;
  } finally {
    await session.close();
  }
}

function failedStatus(error: unknown): string {
  if (error instanceof WorkflowFailedError && error.cause?.name === 'CancelledFailure') return 'cancelled';
  if (error instanceof WorkflowFailedError && error.cause?.name === 'TerminatedFailure') return 'terminated';
  return 'failed';
}

function parseInteger(flag: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value)) throw new UsageError(`${flag} must be a whole number, got "${text}"`);
  return value;
}

// parseArgs reads "--max-iterations -1" as two options; join them so validation can say what is wrong with -1.
function attachNegativeNumbers(argv: string[], flags: string[]): string[] {
  const joined: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    if (flags.includes(argv[index]) && /^-\d/.test(argv[index + 1] ?? '')) {
      joined.push(`${argv[index]}=${argv[++index]}`);
    } else {
      joined.push(argv[index]);
    }
  }
  return joined;
}
