import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicMessagesProblem } from './wire-rules/anthropic-messages';
import { nextResponseId, seal } from './wire-rules/reasoning-seals';
import { openaiChatProblem } from './wire-rules/openai-chat';
import { openaiResponsesProblem, type WireRefusal } from './wire-rules/openai-responses';
import { anthropicCacheProblem, openaiCacheProblem, PromptCacheModel, withCacheUsage } from './wire-rules/prompt-cache';
import { responsesEventStream } from './responses-events';
import type { RequestRateLimit } from './wire-rules/rate-limit';
import { FakeBatchApi } from './fake-batch-api';
import { anthropicMessageEvents, chatCompletionEvents } from './stream-events';
import { geminiProblem } from './wire-rules/gemini';
import { mistralChatProblem } from './wire-rules/mistral-chat';
import { geminiError, geminiEvents, mistralError, mistralEvents } from './gemini-and-mistral-replies';

/**
 * A local HTTP server that speaks the OpenAI Chat Completions and Anthropic
 * Messages wire formats (and, for the AI SDK's packages, Gemini's generateContent
 * and Mistral's Chat Completions under /mistral/: ./gemini-and-mistral-replies.ts),
 * so tests drive the real SDK clients with no internet.
 * Like the real APIs, it first refuses with 400 any request they would refuse
 * (./wire-rules/), without using a script step; otherwise it answers from a
 * script, one step per request whatever the path. It records every request.
 */

/**
 * How a reply goes out to a request that asked for a stream: an event every `intervalMs`, and with `stopAfter`,
 * only that many events, the connection then left open with no more (a model cut off mid-answer).
 */
export interface StreamShape {
  intervalMs?: number;
  stopAfter?: number;
  /** With `stopAfter`: the connection is then dropped (a proxy or the network cutting the answer off), not left open. */
  cut?: boolean;
}

export type FakeStep =
  /**
   * `delayMs`: answer after this long, like a model that takes its time (the benchmarks' 1 s model). A request with
   * `stream: true` gets the same reply as the API's server-sent events, shaped by `stream`.
   */
  | { status?: number; json: unknown; headers?: Record<string, string>; delayMs?: number; stream?: StreamShape }
  /** Server-sent events, as they are (what a scripted step becomes for a request that asked for a stream). */
  | { events: string[]; stream?: StreamShape }
  | { status?: number; raw: string; headers?: Record<string, string> }
  /** Accept the request and never answer. */
  | { hang: true }
  /** Drop the connection without an HTTP response. */
  | { reset: true }
  /** Answer with `then` once `gate` resolves (a slow model a test controls). */
  | { gate: Promise<unknown>; then: FakeStep };

export interface ReceivedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire JSON, asserted field by field
  /** The body as the client wrote it, byte for byte (prompt caching needs calls to share a prefix). */
  rawBody: string;
  receivedAt: number;
  /** Set when the client closed the connection before an answer was sent (a cancelled or timed-out call). */
  abandonedAt?: number;
  /** Set when the request broke a rule of the real API: the 400 message it got. */
  refusal?: string;
  /** Set when the request came over the rate limit (./wire-rules/rate-limit.ts) and got a 429. */
  rateLimited?: boolean;
  /** Set when the request came inside a batch (fake-batch-api.ts): the batch's id. */
  batchId?: string;
}

export type Responder = (request: ReceivedRequest, index: number) => FakeStep;

export class FakeModelServer {
  readonly requests: ReceivedRequest[] = [];
  /** The providers' prompt caches, as they would answer these requests (./wire-rules/prompt-cache.ts). */
  readonly promptCache = new PromptCacheModel();
  /** The providers' batch APIs (./fake-batch-api.ts): each request of a batch is answered as it would be online. */
  readonly batches = new FakeBatchApi({ answer: (request) => this.batchRequestStep(request), url: () => this.url });
  private readonly server: http.Server;
  private script: FakeStep[] = [];
  private responder: Responder | undefined;
  /** A provider's requests-per-second limit (./wire-rules/rate-limit.ts): requests beyond it get the API's 429. */
  rateLimit: RequestRateLimit | undefined;

  private constructor() {
    this.server = http.createServer((request, response) => this.handle(request, response));
  }

  static async start(): Promise<FakeModelServer> {
    const fake = new FakeModelServer();
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The environment a worker needs to send both providers here. */
  get providerEnv(): NodeJS.ProcessEnv {
    return {
      OPENAI_BASE_URL: `${this.url}/v1`,
      OPENAI_API_KEY: 'sk-test-openai-secret',
      ANTHROPIC_BASE_URL: this.url,
      ANTHROPIC_API_KEY: 'sk-ant-test-secret',
    };
  }

  /** Queue steps; each request takes the next one. */
  enqueue(...steps: FakeStep[]): this {
    this.script.push(...steps);
    return this;
  }

  /** Answer every request with a function of it (used once the queue is empty). */
  respondWith(responder: Responder): this {
    this.responder = responder;
    return this;
  }

  /** The requests the real API would have refused, with its message: a test of ours expects none. */
  get refusals(): Array<{ path: string; refusal: string }> {
    return this.requests.flatMap((request) => (request.refusal ? [{ path: request.path, refusal: request.refusal }] : []));
  }

  reset(): void {
    this.requests.length = 0;
    this.script = [];
    this.responder = undefined;
    this.rateLimit = undefined;
    this.promptCache.reset();
    this.batches.reset();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** A request inside a batch: recorded, and refused or answered by the script as the same request online. */
  private batchRequestStep(received: ReceivedRequest): FakeStep | undefined {
    this.requests.push(received);
    const problem = wireProblem(received);
    if (problem) {
      received.refusal = problem.message;
      return errorStep(received.path, problem);
    }
    const scripted = this.script.shift() ?? this.responder?.(received, this.requests.length - 1);
    const step = scripted && withCacheUsage(this.promptCache, received.path, received.body, scripted);
    return received.path.includes('/responses') && step ? asResponsesAnswer(step, received.body) : step;
  }

  private handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    if (this.batches.owns(request)) return this.batches.handle(request, response);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const received: ReceivedRequest = {
        path: request.url ?? '',
        headers: request.headers,
        body: text ? JSON.parse(text) : undefined,
        rawBody: text,
        receivedAt: Date.now(),
      };
      this.requests.push(received);
      response.on('close', () => {
        if (!response.writableEnded) received.abandonedAt = Date.now();
      });
      const problem = wireProblem(received);
      if (problem) {
        received.refusal = problem.message;
        const step = errorStep(received.path, problem);
        respond(response, problem.status, JSON.stringify((step as { json: unknown }).json));
        return;
      }
      const limited = this.rateLimit?.refuse(received);
      if (limited) {
        received.rateLimited = true;
        return this.answer(request, response, limited);
      }
      const scripted = this.script.shift() ?? this.responder?.(received, this.requests.length - 1);
      const step = scripted && withCacheUsage(this.promptCache, received.path, received.body, scripted);
      const fitted = received.path.includes('/responses') && step ? asResponsesAnswer(step, received.body) : step;
      const streamed = received.body?.stream === true || received.path.includes(':streamGenerateContent');
      this.answer(request, response, fitted && streamed ? asEventStream(fitted, received) : fitted);
    });
  }

  private answer(request: http.IncomingMessage, response: http.ServerResponse, step: FakeStep | undefined): void {
    if (!step) {
      respond(
        response,
        500,
        JSON.stringify({ error: { message: `fake model server: no scripted answer for request ${this.requests.length}` } }),
      );
    } else if ('gate' in step) {
      void step.gate.then(() => (response.destroyed ? undefined : this.answer(request, response, step.then)));
    } else if ('hang' in step) {
      // never answer; the client's timeout or cancellation ends it
    } else if ('reset' in step) {
      request.socket.destroy();
    } else if ('events' in step) {
      void sendEvents(response, step.events, step.stream ?? {});
    } else if ('raw' in step) {
      respond(response, step.status ?? 200, step.raw, step.headers);
    } else if (step.delayMs) {
      setTimeout(() => respond(response, step.status ?? 200, JSON.stringify(step.json), step.headers), step.delayMs);
    } else {
      respond(response, step.status ?? 200, JSON.stringify(step.json), step.headers);
    }
  }
}

/** Writes server-sent events one at a time, as a model writes; with `stopAfter`, stops there and never ends the response. */
async function sendEvents(response: http.ServerResponse, events: string[], shape: StreamShape): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const count = Math.min(events.length, shape.stopAfter ?? events.length);
  for (let index = 0; index < count; index++) {
    if (response.destroyed) return;
    // Dropped once the last event is on its way, so that the client reads what came before the cut.
    const cutAfterThis = shape.cut === true && shape.stopAfter !== undefined && index === count - 1;
    response.write(events[index], cutAfterThis ? () => response.destroy() : undefined);
    if (shape.intervalMs) await new Promise((resolve) => setTimeout(resolve, shape.intervalMs));
  }
  if (shape.stopAfter === undefined) response.end();
}

/** A scripted 200 reply to a request that asked for a stream: the same reply as that API's events. */
function asEventStream(step: FakeStep, request: ReceivedRequest): FakeStep {
  if ('gate' in step) return { gate: step.gate, then: asEventStream(step.then, request) };
  if (!('json' in step) || (step.status ?? 200) !== 200) return step;
  const shape = step.stream ?? {};
  if (request.path.includes(':streamGenerateContent')) return { events: geminiEvents(step.json), stream: shape };
  if (request.path.startsWith('/mistral/')) return { events: mistralEvents(step.json), stream: shape };
  if (request.path.includes('/chat/completions'))
    return { events: chatCompletionEvents(step.json, request.body?.stream_options?.include_usage === true), stream: shape };
  if (request.path.includes('/messages')) return { events: anthropicMessageEvents(step.json), stream: shape };
  if (request.path.includes('/responses'))
    return { events: responsesEventStream(step.json as { output: Array<Record<string, unknown>> }), stream: shape };
  return step;
}

function wireProblem(request: ReceivedRequest): WireRefusal | undefined {
  const badRequest = (message: string | undefined) => (message === undefined ? undefined : { status: 400, message });
  if (isGemini(request.path)) return badRequest(geminiProblem(request.body, request.path));
  if (request.path.startsWith('/mistral/')) return mistralChatProblem(request.body);
  if (request.path.includes('/chat/completions'))
    return badRequest(openaiChatProblem(request.body) ?? openaiCacheProblem(request.body));
  if (request.path.includes('/messages'))
    return badRequest(
      anthropicMessagesProblem(request.body, betas(request.headers['anthropic-beta'])) ?? anthropicCacheProblem(request.body),
    );
  if (request.path.includes('/responses'))
    return openaiResponsesProblem(request.body) ?? badRequest(openaiCacheProblem(request.body));
  return undefined;
}

function isGemini(path: string): boolean {
  return /\/models\/[^/]+:(generateContent|streamGenerateContent)/.test(path);
}

/** A refusal in the error body of the API the request was for. */
function errorStep(path: string, problem: WireRefusal): FakeStep {
  if (isGemini(path)) return geminiError(problem.status, problem.message);
  if (path.startsWith('/mistral/')) return mistralError(problem.status, problem.message);
  return path.includes('/messages')
    ? anthropicError(problem.status, problem.message)
    : openaiError(problem.status, problem.message);
}

function betas(header: string | string[] | undefined): string[] {
  return [header ?? []]
    .flat()
    .flatMap((value) => value.split(','))
    .map((value) => value.trim());
}

function respond(response: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(body);
}

// ---- OpenAI Chat Completions responses ----

export interface FakeToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

export function openaiReply(options: {
  content?: string;
  toolCalls?: FakeToolCall[];
  finishReason?: string;
  refusal?: string;
  inputTokens?: number;
  /** What an OpenAI-compatible server (DeepSeek, vLLM) returns as the model's reasoning. */
  reasoningContent?: string;
  reasoningTokens?: number;
}): FakeStep {
  const toolCalls = options.toolCalls ?? [];
  return {
    json: {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'fake-model',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: options.content ?? null,
            refusal: options.refusal ?? null,
            ...(options.reasoningContent !== undefined && { reasoning_content: options.reasoningContent }),
            ...(toolCalls.length > 0 && {
              tool_calls: toolCalls.map((call) => ({
                id: call.id,
                type: 'function',
                function: {
                  name: call.name,
                  arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
                },
              })),
            }),
          },
          finish_reason: options.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: options.inputTokens ?? 100,
        completion_tokens: 20 + (options.reasoningTokens ?? 0),
        total_tokens: (options.inputTokens ?? 100) + 20 + (options.reasoningTokens ?? 0),
        ...(options.reasoningTokens !== undefined && {
          completion_tokens_details: { reasoning_tokens: options.reasoningTokens },
        }),
      },
    },
  };
}

export function openaiError(status: number, message: string, headers?: Record<string, string>): FakeStep {
  return { status, headers, json: { error: { message, type: 'invalid_request_error', param: null, code: null } } };
}

// ---- OpenAI Responses API responses (POST /v1/responses) ----

/** An output item of a Responses API reply: reasoning (sealed by this server), text, a refusal or a function call. */
export type FakeResponsesItem = { reasoning: string } | { text: string } | { refusal: string } | { toolCall: FakeToolCall };

// Reasoning counted in this many tokens per reasoning item, reported as output_tokens_details.reasoning_tokens.
export const fakeReasoningTokensPerItem = 40;

/**
 * What the Responses API answers: reasoning items first (each with a summary, or
 * none for ''), then a text message, then function calls. The @ai-sdk/openai
 * default model speaks this API too.
 */
export function openaiResponsesReply(options: {
  reasoning?: string[];
  content?: string;
  toolCalls?: FakeToolCall[];
  incomplete?: 'max_output_tokens' | 'content_filter';
  inputTokens?: number;
}): FakeStep {
  return openaiResponsesItemsReply(
    [
      ...(options.reasoning ?? []).map((summary) => ({ reasoning: summary })),
      ...(options.content ? [{ text: options.content }] : []),
      ...(options.toolCalls ?? []).map((call) => ({ toolCall: call })),
    ],
    options,
  );
}

/**
 * A Responses API reply with its items in the given order. Reasoning items carry
 * encrypted content sealed by this server (left out, as the API does, when the
 * request did not include `reasoning.encrypted_content`); with `stream: true`
 * the reply goes out as server-sent events.
 */
export function openaiResponsesItemsReply(
  items: FakeResponsesItem[],
  options: { incomplete?: 'max_output_tokens' | 'content_filter'; inputTokens?: number } = {},
): FakeStep {
  const response = nextResponseId('resp');
  const count = items.filter((item) => 'reasoning' in item).length;
  let index = 0;
  const output = items.map((item, position) => {
    if ('reasoning' in item) {
      const id = `rs_${response}_${index}`;
      return {
        type: 'reasoning',
        id,
        summary: item.reasoning ? [{ type: 'summary_text', text: item.reasoning }] : [],
        encrypted_content: seal({ response, index: index++, count }, id),
      };
    }
    if ('toolCall' in item) {
      const call = item.toolCall;
      const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
      return {
        type: 'function_call',
        id: `fc_${call.id}`,
        call_id: call.id,
        name: call.name,
        arguments: args,
        status: 'completed',
      };
    }
    const part =
      'text' in item ? { type: 'output_text', text: item.text, annotations: [] } : { type: 'refusal', refusal: item.refusal };
    return { type: 'message', id: `msg_${response}_${position}`, role: 'assistant', status: 'completed', content: [part] };
  });
  const reasoningTokens = count * fakeReasoningTokensPerItem;
  return {
    json: {
      id: response,
      object: 'response',
      created_at: 1_700_000_000,
      status: options.incomplete ? 'incomplete' : 'completed',
      model: 'fake-model',
      output,
      incomplete_details: options.incomplete ? { reason: options.incomplete } : null,
      error: null,
      usage: {
        input_tokens: options.inputTokens ?? 100,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 20 + reasoningTokens,
        output_tokens_details: { reasoning_tokens: reasoningTokens },
        total_tokens: (options.inputTokens ?? 100) + 20 + reasoningTokens,
      },
    },
  };
}

/** Fits a scripted Responses reply to its request: encrypted reasoning only when included. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON
function asResponsesAnswer(step: FakeStep, body: any): FakeStep {
  if (!('json' in step) || (step.status ?? 200) !== 200) return step;
  const json = step.json as { output?: Array<Record<string, unknown>> };
  if (!Array.isArray(json.output)) return step;
  const included = Array.isArray(body?.include) && body.include.includes('reasoning.encrypted_content');
  const output = json.output.map((item) =>
    item.type === 'reasoning' && !included ? { ...item, encrypted_content: null } : item,
  );
  return { ...step, json: { ...json, output } };
}

// ---- Anthropic Messages responses ----

/** A block of an Anthropic reply: thinking (or redacted thinking, sealed by this server), text or a tool call. */
export type FakeAnthropicBlock =
  { thinking: string } | { redactedThinking: true } | { text: string } | { toolCall: FakeToolCall };

// Thinking counted in this many tokens per block, reported as output_tokens_details.thinking_tokens.
export const fakeThinkingTokensPerBlock = 25;

/** An Anthropic reply: thinking blocks first (sealed by this server, to be sent back unchanged), then text, then tool calls. */
export function anthropicReply(options: {
  thinking?: Array<string | { redacted: true }>;
  text?: string;
  toolCalls?: FakeToolCall[];
  stopReason?: string;
  inputTokens?: number;
}): FakeStep {
  const toolCalls = options.toolCalls ?? [];
  return anthropicBlocksReply(
    [
      ...(options.thinking ?? []).map((item): FakeAnthropicBlock =>
        typeof item === 'string' ? { thinking: item } : { redactedThinking: true },
      ),
      ...(options.text ? [{ text: options.text }] : []),
      ...toolCalls.map((call) => ({ toolCall: call })),
    ],
    { stopReason: options.stopReason ?? (toolCalls.length > 0 ? 'tool_use' : 'end_turn'), inputTokens: options.inputTokens },
  );
}

/** An Anthropic reply with its blocks in the given order (thinking between tool calls, say). */
export function anthropicBlocksReply(
  blocks: FakeAnthropicBlock[],
  options: { stopReason?: string; inputTokens?: number } = {},
): FakeStep {
  const response = nextResponseId('msg');
  const count = blocks.filter((block) => 'thinking' in block || 'redactedThinking' in block).length;
  let index = 0;
  const content = blocks.map((block) => {
    if ('thinking' in block)
      return { type: 'thinking', thinking: block.thinking, signature: seal({ response, index: index++, count }, block.thinking) };
    if ('redactedThinking' in block)
      return { type: 'redacted_thinking', data: seal({ response, index: index++, count }, 'redacted') };
    if ('text' in block) return { type: 'text', text: block.text };
    return { type: 'tool_use', id: block.toolCall.id, name: block.toolCall.name, input: block.toolCall.arguments };
  });
  const usesTools = blocks.some((block) => 'toolCall' in block);
  return {
    json: {
      id: response,
      type: 'message',
      role: 'assistant',
      model: 'fake-model',
      content,
      stop_reason: options.stopReason ?? (usesTools ? 'tool_use' : 'end_turn'),
      stop_sequence: null,
      usage: {
        input_tokens: options.inputTokens ?? 200,
        output_tokens: 30 + count * fakeThinkingTokensPerBlock,
        ...(count > 0 && { output_tokens_details: { thinking_tokens: count * fakeThinkingTokensPerBlock } }),
      },
    },
  };
}

export function anthropicError(status: number, message: string, headers?: Record<string, string>): FakeStep {
  const type = status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  return { status, headers, json: { type: 'error', error: { type, message } } };
}

// ---- Any provider ----

export type FakeProvider = 'openai' | 'openai-responses' | 'anthropic';

/**
 * A reply in the given provider's wire format. `finish` names the neutral
 * reason: `length` (cut at the output-token limit) and `refusal` map to each
 * provider's own (`length` / `max_tokens` / incomplete `max_output_tokens`,
 * `content_filter` / `refusal` / a refusal part). `thinking` comes first, in the
 * provider's own form: `reasoning_content`, a reasoning item, a thinking block.
 */
export function providerReply(
  provider: FakeProvider,
  options: { text?: string; toolCalls?: FakeToolCall[]; finish?: 'length' | 'refusal'; inputTokens?: number; thinking?: string },
): FakeStep {
  const { text, toolCalls, inputTokens, thinking } = options;
  switch (provider) {
    case 'openai': {
      const finishReason = options.finish === 'length' ? 'length' : options.finish === 'refusal' ? 'content_filter' : undefined;
      return openaiReply({ content: text, toolCalls, finishReason, inputTokens, reasoningContent: thinking });
    }
    case 'openai-responses': {
      const said: FakeResponsesItem[] = text ? [options.finish === 'refusal' ? { refusal: text } : { text }] : [];
      return openaiResponsesItemsReply(
        [
          ...(thinking !== undefined ? [{ reasoning: thinking }] : []),
          ...said,
          ...(toolCalls ?? []).map((call) => ({ toolCall: call })),
        ],
        { inputTokens, ...(options.finish === 'length' && { incomplete: 'max_output_tokens' as const }) },
      );
    }
    case 'anthropic': {
      const stopReason = options.finish === 'length' ? 'max_tokens' : options.finish === 'refusal' ? 'refusal' : undefined;
      return anthropicReply({
        text,
        toolCalls,
        stopReason,
        inputTokens,
        thinking: thinking !== undefined ? [thinking] : undefined,
      });
    }
    default: {
      const exhaustive: never = provider;
      throw new Error(`unknown fake provider ${String(exhaustive)}`);
    }
  }
}

export function providerError(provider: FakeProvider, status: number, message: string): FakeStep {
  return provider === 'anthropic' ? anthropicError(status, message) : openaiError(status, message);
}
