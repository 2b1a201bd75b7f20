import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { anthropicReply, FakeModelServer, openaiReply, openaiResponsesReply } from '../support/fake-model-server';

// The fake model server is only worth its tests if it refuses what the real APIs refuse. Its rules are unit-tested
// as functions (test/unit/prepare-requests.test.ts); this proves the server applies them to what the real SDK
// clients send, streamed or not, with a 400 in each API's own error shape, before any scripted answer is used.

let server: FakeModelServer;
beforeAll(async () => {
  server = await FakeModelServer.start();
});
afterAll(() => server?.close());
beforeEach(() => server.reset());

const anthropic = () => new Anthropic({ baseURL: server.providerEnv.ANTHROPIC_BASE_URL, apiKey: 'sk-ant-test', maxRetries: 0 });
const openai = () => new OpenAI({ baseURL: server.providerEnv.OPENAI_BASE_URL, apiKey: 'sk-test', maxRetries: 0 });

/** What the client threw: its HTTP status and the API's message. */
async function refusal(call: () => Promise<unknown>): Promise<{ status: number | undefined; message: string }> {
  const error = await call().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof Anthropic.APIError) && !(error instanceof OpenAI.APIError))
    throw new Error(`expected an API error, got ${String(error)}`);
  return { status: error.status, message: error.message };
}

const toolUse = {
  role: 'assistant' as const,
  content: [{ type: 'tool_use' as const, id: 'toolu_1', name: 'read_file', input: { path: 'a.txt' } }],
};
const toolResult = {
  role: 'user' as const,
  content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_1', content: 'alpha' }],
};
const readFile = {
  name: 'read_file',
  description: 'Reads a file.',
  input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } },
};

describe('Anthropic Messages', () => {
  it.each([false, true])('refuses tool_use and tool_result blocks sent without tools (stream: %s)', async (stream) => {
    server.enqueue(anthropicReply({ text: 'should not be used' }));
    const body = {
      model: 'claude-haiku-4-5',
      max_tokens: 100,
      messages: [{ role: 'user' as const, content: 'read a.txt' }, toolUse, toolResult],
    };
    const refused = await refusal(() =>
      stream ? anthropic().messages.stream(body).finalMessage() : anthropic().messages.create(body),
    );
    expect(refused.status).toBe(400);
    expect(refused.message).toContain('Requests which include `tool_use` or `tool_result` blocks must define tools.');
    expect(server.refusals).toHaveLength(1);
    // The refusal came before the script: the scripted answer is still there for the next valid request.
    expect((await anthropic().messages.create({ ...body, tools: [readFile] })).content).toMatchObject([
      { type: 'text', text: 'should not be used' },
    ]);
  });

  it('refuses a tool_use whose tool_result is missing, and a tool_result without its tool_use', async () => {
    const unanswered = await refusal(() =>
      anthropic().messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 100,
        tools: [readFile],
        messages: [{ role: 'user', content: 'read a.txt' }, toolUse, { role: 'user', content: 'never mind' }],
      }),
    );
    expect(unanswered).toMatchObject({
      status: 400,
      message: expect.stringContaining('`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1'),
    });
    const orphan = await refusal(() =>
      anthropic().messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 100,
        tools: [readFile],
        messages: [{ role: 'user', content: 'read a.txt' }, { role: 'assistant', content: 'ok' }, toolResult],
      }),
    );
    expect(orphan).toMatchObject({
      status: 400,
      message: expect.stringContaining('unexpected `tool_use_id` found in `tool_result` blocks: toolu_1'),
    });
    expect(server.refusals).toHaveLength(2);
  });

  it('refuses repeated tool_use ids, and ids outside its pattern', async () => {
    const twice = {
      role: 'assistant' as const,
      content: [toolUse.content[0], { ...toolUse.content[0], input: { path: 'b.txt' } }],
    };
    const bothAnswered = { role: 'user' as const, content: [toolResult.content[0], toolResult.content[0]] };
    const repeated = await refusal(() =>
      anthropic().messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 100,
        tools: [readFile],
        messages: [{ role: 'user', content: 'read' }, twice, bothAnswered],
      }),
    );
    expect(repeated).toMatchObject({ status: 400, message: expect.stringContaining('`tool_use` ids must be unique') });
    const slashed = { role: 'assistant' as const, content: [{ ...toolUse.content[0], id: 'x/../y' }] };
    const answered = { role: 'user' as const, content: [{ ...toolResult.content[0], tool_use_id: 'x/../y' }] };
    const malformed = await refusal(() =>
      anthropic().messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 100,
        tools: [readFile],
        messages: [{ role: 'user', content: 'read' }, slashed, answered],
      }),
    );
    expect(malformed).toMatchObject({
      status: 400,
      message: expect.stringContaining("tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"),
    });
    expect(server.refusals).toHaveLength(2);
  });
});

describe('OpenAI Chat Completions', () => {
  const call = { id: 'call_1', type: 'function' as const, function: { name: 'read_file', arguments: '{"path":"a.txt"}' } };
  const tools = [{ type: 'function' as const, function: { name: 'read_file', parameters: { type: 'object', properties: {} } } }];

  it.each([false, true])('refuses tool calls without their tool messages (stream: %s)', async (stream) => {
    server.enqueue(openaiReply({ content: 'should not be used' }));
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'read a.txt' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'user', content: 'never mind' },
    ];
    const refused = await refusal(() =>
      stream
        ? openai()
            .chat.completions.create({ model: 'gpt-4o-mini', messages, tools, stream: true })
            .then(async (events) => {
              for await (const _event of events);
            })
        : openai().chat.completions.create({ model: 'gpt-4o-mini', messages, tools }),
    );
    expect(refused.status).toBe(400);
    expect(refused.message).toContain(
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'",
    );
    expect(refused.message).toContain('call_1');
    expect(server.refusals).toHaveLength(1);
  });

  it('refuses a tool message that answers no call', async () => {
    const refused = await refusal(() =>
      openai().chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'user', content: 'read a.txt' },
          { role: 'tool', tool_call_id: 'call_9', content: 'alpha' },
        ],
      }),
    );
    expect(refused).toMatchObject({
      status: 400,
      message: expect.stringContaining("messages with role 'tool' must be a response to a preceeding message with 'tool_calls'"),
    });
  });
});

describe('OpenAI Responses', () => {
  it('refuses a function call without its output, and an output without its call', async () => {
    server.enqueue(openaiResponsesReply({ content: 'should not be used' }));
    const unanswered = await refusal(() =>
      openai().responses.create({
        model: 'o4-mini',
        store: false,
        input: [
          { role: 'user', content: 'read a.txt' },
          { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"a.txt"}' },
        ],
      }),
    );
    expect(unanswered).toMatchObject({
      status: 400,
      message: expect.stringContaining('No tool output found for function call call_1.'),
    });
    const orphan = await refusal(() =>
      openai().responses.create({
        model: 'o4-mini',
        store: false,
        input: [
          { role: 'user', content: 'read a.txt' },
          { type: 'function_call_output', call_id: 'call_1', output: 'alpha' },
        ],
      }),
    );
    expect(orphan).toMatchObject({
      status: 400,
      message: expect.stringContaining('No tool call found for function call output with call_id call_1.'),
    });
    expect(server.refusals).toHaveLength(2);
  });
});
