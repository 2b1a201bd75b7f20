import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ApprovalPolicy, ModelSettings, PromptCacheSetting, ReasoningEffort } from '../../core/agent-spec';
import { everyMcpTool } from '../../mcp/types';
import type { AgentInput } from '../../core/resolve-input';
import { builtInTools } from '../../tools';
import { UsageError } from '../help';
import { invocationDirectory } from '../output';
import { priorityOf, type RunTenancy } from '../../client/run-tenancy';
import { storeAttachments } from '../../client/attachment-input';
import type { AttachmentPart } from '../../core/attachments';

export const defaultModel = 'openai:gpt-4o-mini';

/**
 * The flags of the run's model settings, each the setting it sets and how its text becomes the value: the run's
 * `modelSettings`, checked with the rest of the input (so a temperature of 3 or an effort of "extreme" is reported
 * like any other mistake) and merged over the agent's own in prepareRun. A new setting is one line here.
 */
const modelSettingFlags = {
  temperature: { setting: 'temperature', parse: (flag, text) => parseDecimal(flag, text) },
  'max-output-tokens': { setting: 'maxOutputTokens', parse: (flag, text) => parseInteger(flag, text) },
  'thinking-budget': { setting: 'thinkingBudget', parse: (flag, text) => parseInteger(flag, text) },
  'reasoning-effort': { setting: 'reasoningEffort', parse: (_flag, text) => text as ReasoningEffort },
  'prompt-cache': { setting: 'promptCache', parse: (_flag, text) => text as PromptCacheSetting },
} as const satisfies Record<
  string,
  { setting: keyof ModelSettings; parse: (flag: string, text: string) => ModelSettings[keyof ModelSettings] }
>;
export type ModelSettingFlag = keyof typeof modelSettingFlags;

function modelSettingOptions(): Record<ModelSettingFlag, { type: 'string' }> {
  const entries = Object.keys(modelSettingFlags).map((flag) => [flag, { type: 'string' as const }]);
  return Object.fromEntries(entries) as Record<ModelSettingFlag, { type: 'string' }>;
}

/** The run's modelSettings from its flags; none when no flag sets one. */
export function modelSettingsFromFlags(values: Partial<Record<ModelSettingFlag, string>>): ModelSettings | undefined {
  const settings: Record<string, unknown> = {};
  for (const [flag, { setting, parse }] of Object.entries(modelSettingFlags)) {
    const text = values[flag as ModelSettingFlag];
    if (text !== undefined) settings[setting] = parse(`--${flag}`, text);
  }
  return Object.keys(settings).length > 0 ? (settings as ModelSettings) : undefined;
}

/** The flags `run` and `chat` share: what the agent is and what it may do. */
export const agentOptions = {
  agent: { type: 'string' },
  model: { type: 'string' },
  workspace: { type: 'string' },
  'max-iterations': { type: 'string' },
  'max-tool-calls-per-reply': { type: 'string' },
  'max-session-tokens': { type: 'string' },
  'max-context-tokens': { type: 'string' },
  'keep-recent-turns': { type: 'string' },
  'max-cost-usd': { type: 'string' },
  'approve-tools': { type: 'string' },
  'approval-timeout': { type: 'string' },
  policy: { type: 'string' },
  yes: { type: 'boolean', default: false },
  tools: { type: 'string' },
  system: { type: 'string' },
  ...modelSettingOptions(),
  id: { type: 'string' },
  tenant: { type: 'string' },
  priority: { type: 'string' },
  stream: { type: 'boolean' },
  'no-stream': { type: 'boolean' },
  batch: { type: 'boolean' },
} as const;

/** `--file PATH`, repeatable: an image or file with the prompt (run), the first message (chat), the message (send, steer). */
export const fileOption = { file: { type: 'string', multiple: true } } as const;

const numericFlags = [
  '--max-iterations',
  '--max-tool-calls-per-reply',
  '--max-session-tokens',
  '--max-context-tokens',
  '--keep-recent-turns',
  '--max-cost-usd',
  '--approval-timeout',
  '--idle-timeout',
  '--priority',
  ...Object.keys(modelSettingFlags).map((flag) => `--${flag}`),
];

export interface AgentFlagValues {
  agent?: string;
  model?: string;
  workspace?: string;
  'max-iterations'?: string;
  'max-tool-calls-per-reply'?: string;
  'max-session-tokens'?: string;
  'max-context-tokens'?: string;
  'keep-recent-turns'?: string;
  'max-cost-usd'?: string;
  'approve-tools'?: string;
  'approval-timeout'?: string;
  /** A JSON file holding the run's approval policy (docs/policy.md): its rules before the agent's. */
  policy?: string;
  yes?: boolean;
  tools?: string;
  system?: string;
  temperature?: string;
  'max-output-tokens'?: string;
  'thinking-budget'?: string;
  'reasoning-effort'?: string;
  /** Every model call through the provider's batch API (`run` only: `chat` refuses it). */
  batch?: boolean;
  'prompt-cache'?: string;
}

/**
 * Whether the answer is printed as it is written: --stream or --no-stream, else on a terminal only, and never into
 * --json output (--json --stream still streams to watchers). The run's `stream` input setting follows it.
 */
export function streamWanted(values: { stream?: boolean; 'no-stream'?: boolean }, options: { json?: boolean } = {}): boolean {
  if (values.stream && values['no-stream']) throw new UsageError('give --stream or --no-stream, not both');
  if (values['no-stream']) return false;
  return values.stream ?? (Boolean(process.stdout.isTTY) && !options.json);
}

type NumericFlag =
  'max-iterations' | 'max-tool-calls-per-reply' | 'max-session-tokens' | 'max-context-tokens' | 'keep-recent-turns';

/**
 * The run's input from the flags. `approveTools` is what needs a person's
 * approval when --approve-tools is not given (`agent chat`: write_file).
 */
export function agentInputFromFlags(values: AgentFlagValues, approveTools: string[] = []): AgentInput {
  const integer = (flag: NumericFlag) => (values[flag] !== undefined ? parseInteger(`--${flag}`, values[flag]) : undefined);
  const maxContextTokens = integer('max-context-tokens');
  const keepRecentTurns = integer('keep-recent-turns');
  const modelSettings = modelSettingsFromFlags(values);
  const tools = values.tools
    ?.split(',')
    .map((tool) => tool.trim())
    .filter(Boolean);
  // A named agent brings its own model and tools; the flags only override them. Without one, the default agent
  // gets the model from --model or AGENT_MODEL, every built-in tool, as runs always have, and every MCP tool of the worker.
  const agent =
    values.agent !== undefined
      ? { agent: values.agent, ...(values.model && { model: values.model }), ...(tools && { tools }) }
      : undefined;
  return {
    ...(agent ?? {
      model: values.model ?? process.env.AGENT_MODEL ?? defaultModel,
      tools: tools ?? [...builtInTools.map((tool) => tool.name), everyMcpTool],
    }),
    workspace: path.resolve(invocationDirectory(), values.workspace ?? '.'),
    ...(values.system !== undefined && { systemPrompt: values.system }),
    ...(values['max-iterations'] !== undefined && { maxIterations: integer('max-iterations') }),
    ...(values['max-tool-calls-per-reply'] !== undefined && { maxToolCallsPerReply: integer('max-tool-calls-per-reply') }),
    ...(values['max-session-tokens'] !== undefined && { maxSessionTokens: integer('max-session-tokens') }),
    ...(values['max-cost-usd'] !== undefined && { maxCostUsd: parseAmount('--max-cost-usd', values['max-cost-usd']) }),
    ...(values.batch && { batch: true }),
    approval: {
      tools:
        values['approve-tools'] !== undefined
          ? values['approve-tools']
              .split(',')
              .map((tool) => tool.trim())
              .filter(Boolean)
          : approveTools,
      skip: values.yes === true,
      ...(values['approval-timeout'] !== undefined && {
        timeoutSeconds: parseInteger('--approval-timeout', values['approval-timeout']),
      }),
      ...(values.policy !== undefined && { policy: policyFile(values.policy) }),
    },
    ...(modelSettings && { modelSettings }),
    ...((maxContextTokens !== undefined || keepRecentTurns !== undefined) && {
      context: {
        ...(maxContextTokens !== undefined && { maxContextTokens }),
        ...(keepRecentTurns !== undefined && { keepRecentTurns }),
      },
    }),
  };
}

/**
 * The run's tenant and priority (`--tenant acme --priority 2`): start options of the run, not its input, since they are
 * Temporal's task priority (client/run-tenancy.ts). startAgent checks them and says what is wrong.
 */
export function tenancyFromFlags(values: { tenant?: string; priority?: string }): RunTenancy {
  const tenancy = {
    ...(values.tenant !== undefined && { tenant: values.tenant }),
    ...(values.priority !== undefined && { priority: parseInteger('--priority', values.priority) }),
  };
  // Refused before any server or worker starts, with the flag's name.
  const checked = priorityOf(tenancy);
  if ('problem' in checked) throw new UsageError(`--${checked.problem.replace(/^tenantWeight/, 'tenant-weight')}`);
  return tenancy;
}

export function parseAmount(flag: string, text: string): number {
  const value = Number(text.replace(/^\$/, ''));
  if (text.trim() === '' || !Number.isFinite(value))
    throw new UsageError(`${flag} must be an amount in US dollars, like 0.05, got "${text}"`);
  return value;
}

export function parseDecimal(flag: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) throw new UsageError(`${flag} must be a number, like 0.7, got "${text}"`);
  return value;
}

export function parseInteger(flag: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value)) throw new UsageError(`${flag} must be a whole number, got "${text}"`);
  return value;
}

/** parseArgs reads "--max-iterations -1" as two options; join them so validation can say what is wrong with -1. */
export function attachNegativeNumbers(argv: string[]): string[] {
  const joined: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    if (numericFlags.includes(argv[index]) && /^-\d/.test(argv[index + 1] ?? '')) {
      joined.push(`${argv[index]}=${argv[++index]}`);
    } else {
      joined.push(argv[index]);
    }
  }
  return joined;
}

/** The run's approval policy from `--policy FILE`: JSON, its shape checked with the rest of the input when the run starts. */
function policyFile(file: string): ApprovalPolicy {
  let text: string;
  try {
    text = readFileSync(path.resolve(invocationDirectory(), file), 'utf8');
  } catch (error) {
    throw new UsageError(`--policy ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as ApprovalPolicy;
  } catch (error) {
    throw new UsageError(`--policy ${file} is not JSON: ${(error as Error).message}`);
  }
}

/**
 * The `--file` flags' files, checked and stored before anything starts or is sent (a refused one is an
 * AttachmentRefusedError: exit 2, nothing started): their references, for the prompt or the message.
 */
export async function attachmentsFromFlags(files: string[] | undefined): Promise<AttachmentPart[]> {
  if (!files?.length) return [];
  return storeAttachments(files.map((file) => ({ path: path.resolve(invocationDirectory(), file) })));
}
