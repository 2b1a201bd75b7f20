import type { AgentSpec } from '../core/agent-spec';
import { worstCaseUsd, type ModelPrice } from '../core/cost';
import type { Message } from '../core/messages';
import type { Usage } from '../core/usage';
import type { ResolvedAgentInput } from '../core/input';
import type { RunSetup } from '../activities';
import type { AgentState } from './state';

// Without a tokenizer, text is counted as a token per four characters: rough, but every provider counts fewer.
const charactersPerToken = 4;

/** The run's cost budget in US dollars: its own, else the one of the agent it started with. */
export function costBudgetOf(input: ResolvedAgentInput, setup: RunSetup): number | undefined {
  return input.maxCostUsd ?? setup.agents[input.agent].maxCostUsd;
}

// Under a cost budget every call states its maximum output, so that the worst case priced before it is a real bound.
export const budgetedMaxOutputTokens = 4096;

export function withBoundedOutput(agent: AgentSpec): AgentSpec {
  if (agent.modelSettings.maxOutputTokens !== undefined) return agent;
  return { ...agent, modelSettings: { ...agent.modelSettings, maxOutputTokens: budgetedMaxOutputTokens } };
}

export interface SpendCheck {
  affordable: boolean;
  spentUsd: number;
  worstCaseUsd: number;
}

/**
 * Whether the next model call fits the cost budget: the spend so far (every
 * attempt and subagent included) plus the call's worst case, which is its
 * input (the last call's input and output, and what was added since) and its
 * maximum output, at its model's price: none of that input assumed read from
 * the prompt cache, all of it perhaps written to it. The spend so far is what
 * calls really cost, cache reads at their rate: that is where caching makes a
 * budget go further.
 */
export function spendCheck(
  state: AgentState,
  spent: Usage,
  price: ModelPrice | undefined,
  agent: AgentSpec,
  budgetUsd: number,
): SpendCheck {
  const spentUsd = spent.costUsd ?? 0;
  // prepareRun refuses a budgeted run with an unpriced model; a price still missing here means the call cannot be afforded.
  if (!price) return { affordable: false, spentUsd, worstCaseUsd: Number.POSITIVE_INFINITY };
  const worst = worstCaseUsd(
    price,
    estimatedInputTokens(state, agent),
    agent.modelSettings.maxOutputTokens ?? budgetedMaxOutputTokens,
    { cacheWrites: cacheWritesOf(agent) },
  );
  return { affordable: spentUsd + worst <= budgetUsd, spentUsd, worstCaseUsd: worst };
}

/**
 * The dearest cache writes the next call may make: with prompt caching on (the default), all its input may be
 * written (Anthropic bills a write above the input rate; a price without write rates, like OpenAI's, bills them as
 * input). A price recorded by a run started before the table had write rates has none, so such a run, replayed,
 * decides as it did.
 */
function cacheWritesOf(agent: AgentSpec): 'none' | '5m' | '1h' {
  const setting = agent.modelSettings.promptCache;
  return setting === 'off' ? 'none' : setting === '1h' ? '1h' : '5m';
}

function estimatedInputTokens(state: AgentState, agent: AgentSpec): number {
  const last = state.lastCall;
  const added = state.messages.slice(last?.length ?? 0);
  const known = last ? last.inputTokens + last.outputTokens : Math.ceil(agent.instructions.length / charactersPerToken);
  return known + Math.ceil(added.reduce((sum, message) => sum + charactersOf(message), 0) / charactersPerToken);
}

function charactersOf(message: Message): number {
  switch (message.role) {
    case 'assistant':
      return message.content.length + message.toolCalls.reduce((sum, call) => sum + call.name.length + call.arguments.length, 0);
    case 'system':
    case 'user':
    case 'tool':
      return message.content.length;
    default: {
      const exhaustive: never = message;
      return JSON.stringify(exhaustive).length;
    }
  }
}
