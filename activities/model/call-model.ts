import { CancelledFailure } from '@temporalio/common';
import { z } from 'zod';
import type { AgentRegistry } from '../../agents/registry';
import { priceOf, priced, type ModelPrice, type PriceTable, type PricingOptions } from '../../core/cost';
import { ConfigurationError } from '../../core/errors';
import { addUsage, zeroUsage, type Usage } from '../../core/usage';
import { parseModelId, type ModelId } from '../../core/model-id';
import type { ModelResponse } from '../../core/messages';
import { Context } from '@temporalio/activity';
import { untracedSpans, type AgentSpans } from '../../telemetry/agent-spans';
import type { TranscriptStore } from '../../storage/transcript/transcript-store';
import type { AttachmentStore } from '../../storage/attachment-store';
import { withAttachmentBytes } from './load-attachments';
import { heartbeating } from '../heartbeating';
import { McpCatalog } from '../../mcp/catalog';
import { requestSettings, type ModelProvider, type ProviderCall, type ToolDefinition } from '../../providers/provider-call';
import { classifyProviderError, providerErrorText } from './classify-error';
import { announceRetry, endpointHost } from './retry-notice';
import type { ModelCallInput, ModelCallResult } from './model-input';
import { assessApprovals } from './approval-check';
import { checkOutput } from './structured-output';
import { TextPublisher } from './text-publisher';
import { withTranscript, type ConversationRequest } from './with-transcript';
import { createBatchActivities } from './batch-activities';
import { timingMark } from '../../telemetry/startup-timing';

export type { ModelCallInput, ModelCallResult } from './model-input';

export interface ModelActivityOptions {
  /** The providers, and the tools and agents whose definitions a call names. */
  registry: AgentRegistry;
  env: NodeJS.ProcessEnv;
  transcripts: TranscriptStore;
  /** Where the bytes of messages' images and files are (docs/attachments.md); without it, a call with one is refused. */
  attachments?: AttachmentStore;
  /** What each model's tokens cost (pricing/): every call's usage carries its cost. */
  prices: PriceTable;
  /** Wraps each provider call in a GenAI span when tracing is on. */
  spans?: AgentSpans;
  /** The MCP tool definitions of the runs' listings, which calls name by id. */
  mcpCatalog?: McpCatalog;
}

/** What a call needs before it is made (createModelActivities' setupOf). */
export interface CallSetup {
  id: ModelId;
  provider: ModelProvider;
  price: ModelPrice | undefined;
  outputSchema: z.ZodType | undefined;
  mcpTools: Map<string, ToolDefinition>;
}

/** How a prepared call is answered: online (`provider.call`), or from a batch's result. */
export type Respond = (provider: ModelProvider, call: ProviderCall) => Promise<ModelResponse>;

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
  attachments,
  prices,
  spans = untracedSpans,
  mcpCatalog = new McpCatalog(),
}: ModelActivityOptions) {
  /** What a call needs before it can be made: its provider, price, output schema and MCP tools; refused in words if missing. */
  function setupOf(input: ModelCallInput): CallSetup {
    const id = parseModelId(input.model);
    const provider = registry.providers.get(id.provider);
    if (!provider) {
      throw new ConfigurationError(
        `unknown provider "${id.provider}"; this worker has: ${[...registry.providers.keys()].join(', ')}`,
      );
    }
    provider.checkEnvironment?.(env);
    const outputSchema = input.expectsOutput && input.agent ? registry.outputSchema(input.agent) : undefined;
    if (input.expectsOutput && !outputSchema)
      throw new ConfigurationError(`agent "${input.agent}" has no outputSchema on this worker`);
    return { id, provider, price: priceOf(prices, input.model), outputSchema, mcpTools: mcpCatalog.definitions(input.mcp) };
  }

  /** The provider's request for one conversation: the same for an online call and a batch. */
  function providerCallOf(
    setup: CallSetup,
    input: ModelCallInput,
    request: ConversationRequest,
    context: Context,
  ): ProviderCall & { wantsOutput: boolean } {
    const wantsOutput = setup.outputSchema !== undefined && request.toolChoice === 'auto';
    return {
      model: setup.id.model,
      messages: request.messages,
      tools: request.tools.map((name) => setup.mcpTools.get(name) ?? registry.toolDefinition(name)),
      toolChoice: request.toolChoice,
      // The agent's settings, the run's merged in (prepareRun), as one object: the provider reads what it supports.
      ...requestSettings(input.modelSettings ?? {}),
      ...(wantsOutput && { output: { schema: outputJsonSchema(setup.outputSchema!) } }),
      // The session, for providers that key their prompt cache by one: the workflow id outlives continue-as-new.
      sessionKey: context.info.workflowExecution?.workflowId,
      env,
      signal: context.cancellationSignal,
      timeoutMs: context.info.startToCloseTimeoutMs,
      wantsOutput,
    };
  }

  /**
   * One model call answered: the conversation rebuilt (withTranscript), the provider asked by `respond` (online,
   * or the result of a batch), the reply priced, checked against the outputSchema, and its approvals assessed.
   */
  async function answer(input: ModelCallInput, respond: Respond, pricing: PricingOptions): Promise<ModelCallResult> {
    let providerName = 'model';
    let spent: Usage = zeroUsage;
    try {
      return await heartbeating(
        async (context) => {
          const earlier = (context.info.heartbeatDetails as AttemptSpend | undefined)?.spent ?? zeroUsage;
          spent = earlier;
          providerName = parseModelId(input.model).provider;
          const setup = setupOf(input);
          const { id, provider, price, outputSchema } = setup;
          // A run watched as it is written: the text goes to the run's stream while it arrives (core/stream-events.ts).
          const publisher = input.streamAs !== undefined ? new TextPublisher(input.streamAs, context) : undefined;
          try {
            const answered = await withTranscript(transcripts, input, async (request) => {
              const { wantsOutput, ...bare } = providerCallOf(setup, input, request, context);
              const call = { ...bare, messages: await withAttachmentBytes(bare.messages, provider, id.model, attachments) };
              const callProvider = () =>
                respond(provider, {
                  ...call,
                  ...(publisher && {
                    onTextDelta: (text: string) => publisher.text(text),
                    onThinkingDelta: (text: string) => publisher.thinking(text),
                  }),
                  // Kept for the heartbeats: the next one, or the one a failed attempt sends (heartbeating).
                  onUsage: (usage) => {
                    spent = addUsage(earlier, priced(usage, price, pricing));
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
              const paid = { ...response, usage: addUsage(earlier, priced(response.usage, price, pricing)) };
              return wantsOutput ? { ...paid, ...checkOutput(outputSchema!, response) } : paid;
            });
            // After withTranscript has made the reply's call ids unique: approvals are keyed by them.
            const { needsApproval, descriptions } = assessApprovals(answered.message.toolCalls, registry.tools, {
              approval: input.approval,
              maxToolCalls: input.maxToolCalls,
              run: context.info.workflowExecution?.workflowId ?? 'the run',
              workspace: input.workspace,
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
      const host = endpointHost(registry.providers.get(providerName), env);
      const failure = classifyProviderError(error, providerName, { host, env });
      // Said on the run's stream now, not only in the run's failure after the last attempt (issue 31).
      await announceRetry(Context.current(), failure, {
        model: input.model,
        host: host ?? providerName,
        error: providerErrorText(error, env),
        streamAs: input.streamAs,
      });
      throw failure;
    }
  }

  async function callModel(input: ModelCallInput): Promise<ModelCallResult> {
    timingMark('callModel started');
    return answer(input, (provider, call) => provider.call(call), {});
  }

  const withBytes = (call: ProviderCall, setup: CallSetup) =>
    withAttachmentBytes(call.messages, setup.provider, setup.id.model, attachments).then((messages) => ({ ...call, messages }));
  return { callModel, ...createBatchActivities({ env, transcripts, setupOf, providerCallOf, withBytes, answer }) };
}

function outputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(schema, { io: 'output' });
  return jsonSchema;
}
