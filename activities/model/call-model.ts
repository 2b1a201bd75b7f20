import { CancelledFailure } from '@temporalio/common';
import { z } from 'zod';
import type { AgentRegistry } from '../../agents/registry';
import { priceOf, priced, type PriceTable } from '../../core/cost';
import { ConfigurationError } from '../../core/errors';
import { addUsage, zeroUsage, type Usage } from '../../core/usage';
import { parseModelId } from '../../core/model-id';
import { untracedSpans, type AgentSpans } from '../../telemetry/agent-spans';
import type { TranscriptStore } from '../../storage/transcript/transcript-store';
import { heartbeating } from '../heartbeating';
import { McpCatalog } from '../../mcp/catalog';
import { requestSettings } from '../../providers/provider-call';
import { classifyProviderError } from './classify-error';
import type { ModelCallInput, ModelCallResult } from './model-input';
import { assessApprovals } from './approval-check';
import { checkOutput } from './structured-output';
import { TextPublisher } from './text-publisher';
import { withTranscript } from './with-transcript';
import { timingMark } from '../../telemetry/startup-timing';

export type { ModelCallInput, ModelCallResult } from './model-input';

export interface ModelActivityOptions {
  /** The providers, and the tools and agents whose definitions a call names. */
  registry: AgentRegistry;
  env: NodeJS.ProcessEnv;
  transcripts: TranscriptStore;
  /** What each model's tokens cost (pricing/): every call's usage carries its cost. */
  prices: PriceTable;
  /** Wraps each provider call in a GenAI span when tracing is on. */
  spans?: AgentSpans;
  /** The MCP tool definitions of the runs' listings, which calls name by id. */
  mcpCatalog?: McpCatalog;
}

/** What a model call has cost so far, every attempt of it included: kept in its heartbeat details. */
interface AttemptSpend {
  spent: Usage;
}

/**
 * The model activity: finds the provider a call names among the registered
 * ones, rebuilds the conversation from the transcript store, asks for and checks
 * structured output when the agent has an outputSchema, prices the tokens, and
 * classifies whatever the provider threw, once, for every provider. A response
 * is paid for even when its attempt then fails: its tokens go into the
 * heartbeat details, and the attempt that succeeds reports them too.
 */
export function createModelActivities({
  registry,
  env,
  transcripts,
  prices,
  spans = untracedSpans,
  mcpCatalog = new McpCatalog(),
}: ModelActivityOptions) {
  async function callModel(input: ModelCallInput): Promise<ModelCallResult> {
    timingMark('callModel started');
    let providerName = 'model';
    let spent: Usage = zeroUsage;
    try {
      return await heartbeating(
        async (context) => {
          const earlier = (context.info.heartbeatDetails as AttemptSpend | undefined)?.spent ?? zeroUsage;
          spent = earlier;
          const id = parseModelId(input.model);
          providerName = id.provider;
          const provider = registry.providers.get(id.provider);
          if (!provider) {
            throw new ConfigurationError(
              `unknown provider "${id.provider}"; this worker has: ${[...registry.providers.keys()].join(', ')}`,
            );
          }
          provider.checkEnvironment?.(env);
          const price = priceOf(prices, input.model);
          const outputSchema = input.expectsOutput && input.agent ? registry.outputSchema(input.agent) : undefined;
          if (input.expectsOutput && !outputSchema)
            throw new ConfigurationError(`agent "${input.agent}" has no outputSchema on this worker`);
          const mcpTools = mcpCatalog.definitions(input.mcp);
          // A run watched as it is written: the text goes to the run's stream while it arrives (core/stream-events.ts).
          const publisher = input.streamAs !== undefined ? new TextPublisher(input.streamAs, context) : undefined;
          try {
            const answered = await withTranscript(transcripts, input, async (request) => {
              const wantsOutput = outputSchema !== undefined && request.toolChoice === 'auto';
              const callProvider = () =>
                provider.call({
                  model: id.model,
                  messages: request.messages,
                  tools: request.tools.map((name) => mcpTools.get(name) ?? registry.toolDefinition(name)),
                  toolChoice: request.toolChoice,
                  // The agent's settings, the run's merged in (prepareRun), as one object: the provider reads what it supports.
                  ...requestSettings(input.modelSettings ?? {}),
                  ...(wantsOutput && { output: { schema: outputJsonSchema(outputSchema) } }),
                  env,
                  signal: context.cancellationSignal,
                  timeoutMs: context.info.startToCloseTimeoutMs,
                  ...(publisher && { onTextDelta: (text: string) => publisher.text(text) }),
                  onUsage: (usage) => {
                    spent = addUsage(earlier, priced(usage, price));
                    context.heartbeat({ spent } satisfies AttemptSpend);
                  },
                });
              const response = await spans.modelCall(
                {
                  provider: id.provider,
                  model: id.model,
                  agent: input.agent,
                  conversationId: context.info.workflowExecution?.workflowId,
                  maxOutputTokens: input.modelSettings?.maxOutputTokens,
                  temperature: input.modelSettings?.temperature,
                  ...(wantsOutput && { outputType: 'json' as const }),
                },
                callProvider,
              );
              const paid = { ...response, usage: addUsage(earlier, priced(response.usage, price)) };
              return wantsOutput ? { ...paid, ...checkOutput(outputSchema, response) } : paid;
            });
            // After withTranscript has made the reply's call ids unique: approvals are keyed by them.
            const { needsApproval, descriptions } = assessApprovals(answered.message.toolCalls, registry.tools, {
              approval: input.approval,
              maxToolCalls: input.maxToolCalls,
              run: context.info.workflowExecution?.workflowId ?? 'the run',
            });
            return {
              ...answered,
              ...(needsApproval.length > 0 && { needsApproval }),
              ...(Object.keys(descriptions).length > 0 && { approvalDescriptions: descriptions }),
            };
          } finally {
            await publisher?.close();
          }
        },
        () => ({ spent }) satisfies AttemptSpend,
      );
    } catch (error) {
      if (error instanceof CancelledFailure) throw error;
      throw classifyProviderError(error, providerName);
    }
  }

  return { callModel };
}

function outputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(schema, { io: 'output' });
  return jsonSchema;
}
