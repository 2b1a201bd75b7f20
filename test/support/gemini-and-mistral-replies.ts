import type { FakeStep, FakeToolCall } from './fake-model-server';
import { nextResponseId, seal } from './wire-rules/reasoning-seals';
import { textPieces } from './stream-events';

/* eslint-disable @typescript-eslint/no-explicit-any -- wire JSON */

/**
 * Replies of two APIs the AI SDK's packages speak, for the fake model server: Gemini's `generateContent` (and its
 * `streamGenerateContent?alt=sse` events) for `@ai-sdk/google`, and Mistral's Chat Completions (and its chunks) for
 * `@ai-sdk/mistral`. Wire rules: ./wire-rules/gemini.ts, ./wire-rules/mistral-chat.ts.
 */

// Thinking counted in this many tokens per thought part, reported as usageMetadata.thoughtsTokenCount.
export const fakeGeminiThoughtTokens = 30;

/**
 * A Gemini reply: a thought (when given), text, then function calls. The thought's signature (sealed by this server,
 * to be sent back unchanged) rides on the first function call, as Gemini puts it, or on the thought when there are none.
 */
export function geminiReply(options: {
  thinking?: string;
  text?: string;
  toolCalls?: FakeToolCall[];
  finishReason?: string;
  inputTokens?: number;
  cachedTokens?: number;
}): FakeStep {
  const response = nextResponseId('gemini');
  const calls = options.toolCalls ?? [];
  const signatureOn = (text: string) => ({ thoughtSignature: seal({ response, index: 0, count: 1 }, text) });
  const parts: any[] = [];
  if (options.thinking !== undefined)
    parts.push({ text: options.thinking, thought: true, ...(calls.length === 0 && signatureOn(options.thinking)) });
  if (options.text) parts.push({ text: options.text });
  calls.forEach((call, index) =>
    parts.push({
      functionCall: { id: call.id, name: call.name, args: call.arguments },
      ...(index === 0 && options.thinking !== undefined && signatureOn(call.name)),
    }),
  );
  const thoughts = options.thinking !== undefined ? fakeGeminiThoughtTokens : 0;
  return {
    json: {
      candidates: [{ content: { role: 'model', parts }, finishReason: options.finishReason ?? 'STOP', index: 0 }],
      usageMetadata: {
        promptTokenCount: options.inputTokens ?? 120,
        candidatesTokenCount: 25,
        totalTokenCount: (options.inputTokens ?? 120) + 25 + thoughts,
        ...(thoughts > 0 && { thoughtsTokenCount: thoughts }),
        ...(options.cachedTokens !== undefined && { cachedContentTokenCount: options.cachedTokens }),
      },
      modelVersion: 'fake-gemini',
      responseId: response,
    },
  };
}

/** Gemini's error body: `{ error: { code, message, status } }`. */
export function geminiError(status: number, message: string, headers?: Record<string, string>): FakeStep {
  const name =
    status === 429 ? 'RESOURCE_EXHAUSTED' : status === 503 ? 'UNAVAILABLE' : status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT';
  return { status, headers, json: { error: { code: status, message, status: name } } };
}

/** A Gemini reply as `streamGenerateContent?alt=sse` sends it: a chunk per piece of text, the calls, the finish and usage last. */
export function geminiEvents(reply: any): string[] {
  const [candidate] = reply.candidates;
  const chunk = (parts: any[], last: boolean) => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(last && { finishReason: candidate.finishReason }) }],
    ...(last && { usageMetadata: reply.usageMetadata }),
    modelVersion: reply.modelVersion,
    responseId: reply.responseId,
  });
  const chunks: any[] = [];
  const calls: any[] = [];
  for (const part of candidate.content.parts) {
    if (part.functionCall) calls.push(part);
    else if (part.thoughtSignature || part.thought) chunks.push(chunk([part], false));
    else chunks.push(...textPieces(part.text).map((piece) => chunk([{ text: piece }], false)));
  }
  chunks.push(chunk(calls, true));
  return chunks.map((data) => `data: ${JSON.stringify(data)}\r\n\r\n`);
}

/** A Mistral Chat Completions reply: text, then tool calls (Mistral's ids: nine letters and digits). */
export function mistralReply(options: {
  text?: string;
  toolCalls?: FakeToolCall[];
  finishReason?: string;
  inputTokens?: number;
}): FakeStep {
  const calls = options.toolCalls ?? [];
  return {
    json: {
      id: nextResponseId('mistral'),
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'fake-mistral',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: options.text ?? '',
            tool_calls:
              calls.length > 0
                ? calls.map((call) => ({
                    id: call.id,
                    type: 'function',
                    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                  }))
                : null,
          },
          finish_reason: options.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop'),
        },
      ],
      usage: { prompt_tokens: options.inputTokens ?? 90, completion_tokens: 15, total_tokens: (options.inputTokens ?? 90) + 15 },
    },
  };
}

/** Mistral's error body, as `@ai-sdk/mistral` reads it. */
export function mistralError(status: number, message: string, headers?: Record<string, string>): FakeStep {
  return { status, headers, json: { object: 'error', message, type: 'invalid_request_error', param: null, code: null } };
}

/** A Mistral reply as its stream: text piece by piece, each tool call whole in one chunk, the finish with the usage. */
export function mistralEvents(reply: any): string[] {
  const [choice] = reply.choices;
  const chunk = (delta: any, finish: string | null = null, usage?: unknown) => ({
    id: reply.id,
    object: 'chat.completion.chunk',
    created: reply.created,
    model: reply.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(usage !== undefined && { usage }),
  });
  const chunks = [chunk({ role: 'assistant', content: '' })];
  chunks.push(...textPieces(choice.message.content ?? '').map((piece) => chunk({ content: piece })));
  if (choice.message.tool_calls)
    chunks.push(chunk({ tool_calls: choice.message.tool_calls.map((call: any, index: number) => ({ ...call, index })) }));
  chunks.push(chunk({ content: '' }, choice.finish_reason, reply.usage));
  return [...chunks.map((data) => `data: ${JSON.stringify(data)}\n\n`), 'data: [DONE]\n\n'];
}
