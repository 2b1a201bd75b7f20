import { ApplicationFailure } from '@temporalio/common';
import {
  errorType,
  modelCallAttributes,
  modelCallSpanName,
  modelResponseAttributes,
  toolCallAttributes,
  toolCallSpanName,
} from '../../telemetry/gen-ai-attributes';

describe('GenAI span names and attributes (OpenTelemetry semantic conventions)', () => {
  it('name a model call "chat {model}" and carry the provider under both its current and its former attribute', () => {
    const span = {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      agent: 'researcher',
      conversationId: 'agent-123',
      maxOutputTokens: 1024,
    };
    expect(modelCallSpanName(span)).toBe('chat claude-sonnet-4-5');
    expect(modelCallAttributes(span)).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.system': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4-5',
      'gen_ai.request.max_tokens': 1024,
      'gen_ai.conversation.id': 'agent-123',
      'gen_ai.agent.name': 'researcher',
    });
  });

  it('record usage and the finish reason from the neutral response', () => {
    const response = {
      message: { role: 'assistant' as const, content: '', toolCalls: [] },
      finishReason: 'length' as const,
      usage: { inputTokens: 1500, outputTokens: 4096 },
    };
    expect(modelResponseAttributes(response)).toEqual({
      'gen_ai.usage.input_tokens': 1500,
      'gen_ai.usage.output_tokens': 4096,
      'gen_ai.response.finish_reasons': ['length'],
    });
  });

  it("record prompt-cache reads and writes under the conventions' cache attributes, as parts of the input", () => {
    const response = {
      message: { role: 'assistant' as const, content: 'ok', toolCalls: [] },
      finishReason: 'stop' as const,
      usage: { inputTokens: 5000, outputTokens: 40, cacheReadTokens: 4000, cacheWriteTokens: 900 },
    };
    expect(modelResponseAttributes(response)).toEqual({
      'gen_ai.usage.input_tokens': 5000,
      'gen_ai.usage.output_tokens': 40,
      'gen_ai.usage.cache_read.input_tokens': 4000,
      'gen_ai.usage.cache_creation.input_tokens': 900,
      'gen_ai.response.finish_reasons': ['stop'],
    });
  });

  it('name a tool call "execute_tool {tool}"', () => {
    const span = { tool: 'read_file', callId: 'call_1', description: 'Read a file' };
    expect(toolCallSpanName(span)).toBe('execute_tool read_file');
    expect(toolCallAttributes(span)).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_file',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.description': 'Read a file',
    });
  });

  it('give error.type as the provider’s HTTP status, else a Temporal failure’s type, else the error class', () => {
    expect(errorType(Object.assign(new Error('rate limited'), { status: 429 }))).toBe('429');
    expect(errorType(new TypeError('boom'))).toBe('TypeError');
    expect(errorType(ApplicationFailure.create({ type: 'ToolRefused', message: 'the file said: secret' }))).toBe('ToolRefused');
    expect(errorType('a string')).toBe('_OTHER');
  });
});
