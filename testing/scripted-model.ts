import type { ModelSettings } from '../core/agent-spec';
import type { Message, ModelResponse } from '../core/messages';
import { defineProvider } from '../providers/define-provider';
import { attachmentBounds, attachmentMediaTypes } from '../core/attachments';
import type { ModelProvider, ProviderCall, ToolChoice, ToolDefinition } from '../providers/provider-call';
import { ScriptedFailure, scriptError, toModelResponse, type ScriptedReply } from './scripted-reply';

/** One model call as the scripted model received it: what a test asserts on. */
export interface ScriptedRequest {
  /** The agent asking (known when the test env answers your agents with this model; see scriptedModelId). */
  agent?: string;
  /** The model the agent names (`openai:gpt-4o-mini`), or what follows `scripted:` when a model names this provider directly. */
  model: string;
  /** The whole conversation the model is shown: the agent's instructions first, tool results linked by call id. */
  messages: Message[];
  /** The tools offered, with their descriptions and JSON Schemas. */
  tools: ToolDefinition[];
  /** `none` when the call must answer in text (the summary at the iteration limit). */
  toolChoice: ToolChoice;
  /** The agent's model settings, the run's overrides merged in. */
  modelSettings: ModelSettings;
  /** The JSON Schema the answer must match, for an agent with an outputSchema. */
  output?: { schema: Record<string, unknown> };
}

/** A step answers one model call: a reply, or a function of the request that returns one. */
export type ScriptStep = ScriptedReply | ((request: ScriptedRequest) => ScriptedReply | Promise<ScriptedReply>);

/**
 * A script: replies in order (whoever asks), one list per agent (for subagents and handoffs, whose calls interleave),
 * or a function of each request.
 */
export type Script =
  ScriptStep[] | Record<string, ScriptStep[]> | ((request: ScriptedRequest) => ScriptedReply | Promise<ScriptedReply>);

/** The provider name a scripted model registers under unless told otherwise. */
export const scriptedProviderName = 'scripted';

/**
 * The model id under which the test env registers your agents: `scripted:<agent>@<the agent's own model>`, so the
 * scripted model knows who asks and tests still read the agent's own model in each request.
 */
export function scriptedModelId(provider: string, agent: string, model: string): string {
  return `${provider}:${agent}@${model}`;
}

/**
 * A model provider that answers from a script and records every request. Register `model.provider` like any provider
 * (on your worker, or through createAgentTestEnv, which also points your agents at it); its calls run in the worker's
 * process, so a test reads `model.requests` directly.
 */
export class ScriptedModel {
  /** Every model call, in the order they came (each retry of a failed call too). */
  readonly requests: ScriptedRequest[] = [];
  readonly provider: ModelProvider;
  private next: (request: ScriptedRequest) => ScriptStep | undefined;
  private callIds = 0;

  constructor(script: Script = [], options: { name?: string } = {}) {
    this.next = nextStep(script);
    const name = options.name ?? scriptedProviderName;
    // It takes every attachment a message may carry, so a test of an agent that reads images can send one and read,
    // in its requests, the user message's attachments with their bytes (base64 `data`).
    const attachments = {
      mediaTypes: attachmentMediaTypes,
      maxImageBytes: attachmentBounds.maxFileBytes,
      maxFileBytes: attachmentBounds.maxFileBytes,
      maxRequestBytes: attachmentBounds.maxMessageBytes * attachmentBounds.maxFiles,
    };
    this.provider = defineProvider({ name, attachments, call: (call) => this.answer(name, call) });
  }

  /** Starts over with this script and no requests: one test env for a file, a script for each test. */
  reset(script: Script): void {
    this.next = nextStep(script);
    this.requests.length = 0;
  }

  /** The requests one agent made. */
  requestsOf(agent: string): ScriptedRequest[] {
    return this.requests.filter((request) => request.agent === agent);
  }

  private async answer(provider: string, call: ProviderCall): Promise<ModelResponse> {
    const separator = call.model.indexOf('@');
    const agent = separator > 0 ? call.model.slice(0, separator) : undefined;
    const request: ScriptedRequest = structuredClone({
      ...(agent !== undefined && { agent }),
      model: separator > 0 ? call.model.slice(separator + 1) : call.model,
      messages: call.messages,
      tools: call.tools,
      toolChoice: call.toolChoice,
      modelSettings: call.modelSettings,
      ...(call.output && { output: call.output }),
    });
    this.requests.push(request);
    const step = this.next(request);
    if (step === undefined) {
      const last = request.messages.at(-1);
      throw scriptError(
        `the scripted model has no reply for request ${this.requests.length}${agent ? ` (agent ${agent})` : ''}; ` +
          `its last message: ${last ? `${last.role}: ${JSON.stringify(last.content).slice(0, 200)}` : 'none'}`,
      );
    }
    let reply: ScriptedReply;
    try {
      reply = typeof step === 'function' ? await step(request) : step;
    } catch (error) {
      // A function that waited for the call's cancellation (Context.current().cancelled) ends as a cancelled call.
      if (call.signal.aborted) throw error;
      // A bug in the test's function is not a provider outage: it must not be retried ten times.
      throw scriptError(`the script's function threw: ${(error as Error)?.message ?? String(error)}`);
    }
    if (reply instanceof ScriptedFailure) throw reply.toError();
    const response = toModelResponse(reply, { provider, model: call.model, nextCallId: () => `call_${++this.callIds}` });
    call.onUsage?.(response.usage);
    // A watched run streams its text: the piece the real providers report as it arrives.
    if (response.message.content) call.onTextDelta?.(response.message.content);
    return response;
  }
}

/** A scripted model: `scriptedModel(['Hello!'])`, `scriptedModel({ assistant: [...], researcher: [...] })`, or a function. */
export function scriptedModel(script: Script = [], options: { name?: string } = {}): ScriptedModel {
  return new ScriptedModel(script, options);
}

function nextStep(script: Script): (request: ScriptedRequest) => ScriptStep | undefined {
  if (typeof script === 'function') return () => script;
  if (Array.isArray(script)) {
    const steps = [...script];
    return () => steps.shift();
  }
  if (typeof script !== 'object' || script === null)
    throw new TypeError('a script is a list of replies, one list per agent, or a function of the request');
  const queues = new Map(Object.entries(script).map(([agent, steps]) => [agent, [...steps]]));
  return (request) => {
    if (request.agent === undefined)
      throw scriptError(`a script by agent needs to know the agent: model "${request.model}" names none`);
    return queues.get(request.agent)?.shift();
  };
}
