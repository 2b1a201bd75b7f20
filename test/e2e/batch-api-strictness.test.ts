import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { anthropicReply, FakeModelServer, openaiReply } from '../support/fake-model-server';
import { waitFor } from '../support/wait-for';

/**
 * The fake's batch APIs refuse what the real ones refuse, through the real SDK clients: the rules the engine's
 * batch mode is held to (test/e2e/batch-mode.test.ts) are only worth what these say.
 */
let server: FakeModelServer;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  server = await FakeModelServer.start();
  openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL: server.url, maxRetries: 0 });
});
beforeEach(() => {
  server.reset();
  server.batches.always({ validatingMs: 10, inProgressMs: 10, finalizingMs: 10 });
});
afterAll(() => server.close());

const chatLine = (customId: string, body: Record<string, unknown> = {}) =>
  JSON.stringify({
    custom_id: customId,
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...body },
  });

async function openaiBatch(jsonl: string, endpoint: '/v1/chat/completions' | '/v1/responses' = '/v1/chat/completions') {
  const file = await openai.files.create({ file: await toFile(Buffer.from(jsonl), 'input.jsonl'), purpose: 'batch' });
  return openai.batches.create({ input_file_id: file.id, endpoint, completion_window: '24h' });
}

async function settled(id: string) {
  let batch = await openai.batches.retrieve(id);
  await waitFor('the batch to settle', async () => {
    batch = await openai.batches.retrieve(id);
    return !['validating', 'in_progress', 'finalizing'].includes(batch.status);
  });
  return batch;
}

describe('OpenAI Batch API', () => {
  it('moves a batch through validating, in_progress and finalizing to completed, with its answer in the output file', async () => {
    // Each stage is held until the test has seen it (the answer and the end are gated): a poll on a busy machine can
    // come later than any stage's length.
    let answer!: () => void;
    let finish!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const finalized = new Promise<void>((resolve) => (finish = resolve));
    server.batches.plan({ validatingMs: 150, inProgressMs: 150, finalizingMs: 150, finalizingUntil: finalized });
    server.enqueue({ gate: answered, then: openaiReply({ content: 'hello' }) });
    const created = await openaiBatch(`${chatLine('a')}\n`);
    const seen = [created.status];
    for (const [stage, release] of [
      ['in_progress', answer],
      ['finalizing', finish],
      ['completed', () => {}],
    ] as const) {
      await waitFor(`the batch ${stage}`, async () => {
        const { status } = await openai.batches.retrieve(created.id);
        if (status !== seen.at(-1)) seen.push(status);
        return status === stage;
      });
      release();
    }
    expect([...seen]).toEqual(['validating', 'in_progress', 'finalizing', 'completed']);
    const batch = await openai.batches.retrieve(created.id);
    expect(batch.request_counts).toEqual({ total: 1, completed: 1, failed: 0 });
    const output = (await (await openai.files.content(batch.output_file_id!)).text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(output).toEqual([
      expect.objectContaining({
        custom_id: 'a',
        response: expect.objectContaining({ status_code: 200, body: expect.objectContaining({ object: 'chat.completion' }) }),
        error: null,
      }),
    ]);
  });

  it.each([
    ['a line that is not JSON', `${chatLine('a')}\n{not json\n`, 'invalid_json_line', 2],
    ['a duplicate custom_id', `${chatLine('a')}\n${chatLine('a')}\n`, 'duplicate_custom_id', 2],
    [
      'a line for another endpoint',
      JSON.stringify({ custom_id: 'a', method: 'POST', url: '/v1/responses', body: {} }),
      'mismatched_endpoint',
      1,
    ],
    ['streaming', chatLine('a', { stream: true }), 'invalid_request', 1],
    ['two models in one batch', `${chatLine('a')}\n${chatLine('b', { model: 'gpt-4o' })}\n`, 'mismatched_model', 2],
    [
      'a line without custom_id',
      JSON.stringify({ method: 'POST', url: '/v1/chat/completions', body: {} }),
      'missing_custom_id',
      1,
    ],
  ])('fails a batch with %s in validation, naming the line', async (_case, jsonl, code, line) => {
    const batch = await settled((await openaiBatch(jsonl)).id);
    expect(batch.status).toBe('failed');
    expect(batch.errors?.data).toEqual([expect.objectContaining({ code, line })]);
    expect(server.requests).toEqual([]);
  });

  it('fails a batch for a model the API does not know', async () => {
    server.batches.unknownModels.add('gpt-nonexistent');
    const batch = await settled((await openaiBatch(chatLine('a', { model: 'gpt-nonexistent' }))).id);
    expect(batch.errors?.data?.[0]).toMatchObject({ code: 'model_not_found', line: 1 });
  });

  it('refuses more requests than a batch may hold', async () => {
    server.batches.limits.openaiMaxRequests = 2;
    const batch = await settled((await openaiBatch([chatLine('a'), chatLine('b'), chatLine('c')].join('\n'))).id);
    expect(batch.errors?.data?.[0]).toMatchObject({ code: 'too_many_requests' });
  });

  it('refuses a file over the size limit at upload', async () => {
    server.batches.limits.openaiMaxFileBytes = 100;
    await expect(
      openai.files.create({ file: await toFile(Buffer.from(chatLine('a').repeat(3)), 'x.jsonl'), purpose: 'batch' }),
    ).rejects.toMatchObject({
      status: 400,
    });
  });

  it('refuses a batch without completion_window, or with another one, or for an endpoint it does not batch', async () => {
    const file = await openai.files.create({ file: await toFile(Buffer.from(chatLine('a')), 'input.jsonl'), purpose: 'batch' });
    const create = (params: Record<string, unknown>) => openai.batches.create(params as never);
    await expect(create({ input_file_id: file.id, endpoint: '/v1/chat/completions' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("'completion_window'"),
    });
    await expect(
      create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '1h' }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(create({ input_file_id: file.id, endpoint: '/v1/messages', completion_window: '24h' })).rejects.toMatchObject({
      status: 400,
    });
  });

  it('keeps the metadata a batch was created with, within the API limits, and lists batches newest first by cursor', async () => {
    const file = await openai.files.create({ file: await toFile(Buffer.from(chatLine('a')), 'input.jsonl'), purpose: 'batch' });
    const create = (metadata: unknown) =>
      openai.batches.create({
        input_file_id: file.id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
        metadata,
      } as never);
    const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v']));
    for (const metadata of [tooMany, { ['k'.repeat(65)]: 'v' }, { key: 'v'.repeat(513) }, { key: 1 }, ['v']])
      await expect(create(metadata)).rejects.toMatchObject({ status: 400, message: expect.stringContaining("'metadata") });
    expect(server.batches.batches).toEqual([]);

    const created = [];
    for (const index of [1, 2, 3]) created.push(await create({ request: `r${index}` }));
    expect((await openai.batches.retrieve(created[1].id)).metadata).toEqual({ request: 'r2' });
    const first = await openai.batches.list({ limit: 2 });
    expect(first.data.map((batch) => batch.metadata?.request)).toEqual(['r3', 'r2']);
    expect(first.hasNextPage()).toBe(true);
    const second = await first.getNextPage();
    expect(second.data.map((batch) => batch.metadata?.request)).toEqual(['r1']);
    expect(second.hasNextPage()).toBe(false);
    await expect(openai.batches.list({ limit: 101 })).rejects.toMatchObject({ status: 400 });
  });

  it('refuses a batch over a file not uploaded for batches, and a file that is not .jsonl', async () => {
    const file = await openai.files.create({
      file: await toFile(Buffer.from(chatLine('a')), 'input.jsonl'),
      purpose: 'user_data',
    });
    await expect(
      openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    ).rejects.toMatchObject({
      status: 400,
    });
    await expect(
      openai.files.create({ file: await toFile(Buffer.from(chatLine('a')), 'input.txt'), purpose: 'batch' }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('puts a request the online API would refuse in the error file, with its 400', async () => {
    const batch = await settled((await openaiBatch(chatLine('a', { messages: [] }))).id);
    expect(batch.status).toBe('completed');
    expect(batch.output_file_id).toBeNull();
    const errors = (await (await openai.files.content(batch.error_file_id!)).text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(errors[0]).toMatchObject({ custom_id: 'a', response: { status_code: 400 } });
    expect(server.refusals).toHaveLength(1);
  });

  it('puts a request with a tool call its tool message never answers in the error file, as online', async () => {
    const unpaired = chatLine('a', {
      tools: [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } }],
      messages: [
        { role: 'user', content: 'read a.txt' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
        },
        { role: 'user', content: 'and then?' },
      ],
    });
    const batch = await settled((await openaiBatch(unpaired)).id);
    const errors = (await (await openai.files.content(batch.error_file_id!)).text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(errors[0]).toMatchObject({ custom_id: 'a', response: { status_code: 400 } });
    expect(server.refusals.map(({ refusal }) => refusal)).toEqual([
      expect.stringContaining('The following tool_call_ids did not have response messages: call_1'),
    ]);
  });

  it('expires a batch: status expired, every request batch_expired in the error file, nothing answered', async () => {
    server.batches.plan({ outcome: 'expired' });
    server.enqueue(openaiReply({ content: 'never sent' }));
    const batch = await settled((await openaiBatch(chatLine('a'))).id);
    expect(batch.status).toBe('expired');
    const errors = (await (await openai.files.content(batch.error_file_id!)).text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(errors).toEqual([
      expect.objectContaining({ custom_id: 'a', error: expect.objectContaining({ code: 'batch_expired' }) }),
    ]);
    expect(server.requests).toEqual([]);
  });
});

describe('Anthropic Message Batches', () => {
  const request = (customId: string, params: Record<string, unknown> = {}) => ({
    custom_id: customId,
    params: { model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user' as const, content: 'hi' }], ...params },
  });

  it('processes a batch to ended and gives each result by custom_id', async () => {
    server.enqueue(anthropicReply({ text: 'one' }));
    const created = await anthropic.messages.batches.create({ requests: [request('req_1'), request('req_2', { messages: [] })] });
    expect(created.processing_status).toBe('in_progress');
    await waitFor(
      'the batch to end',
      async () => (await anthropic.messages.batches.retrieve(created.id)).processing_status === 'ended',
    );
    const batch = await anthropic.messages.batches.retrieve(created.id);
    expect(batch.request_counts).toMatchObject({ succeeded: 1, errored: 1, processing: 0 });
    const results = [];
    for await (const result of await anthropic.messages.batches.results(created.id)) results.push(result);
    expect(results).toEqual([
      { custom_id: 'req_1', result: { type: 'succeeded', message: expect.objectContaining({ type: 'message' }) } },
      {
        custom_id: 'req_2',
        result: {
          type: 'errored',
          error: expect.objectContaining({ error: expect.objectContaining({ type: 'invalid_request_error' }) }),
        },
      },
    ]);
  });

  it.each([
    ['a custom_id outside the pattern', [request('has space')], /custom_id: String should match pattern/],
    ['a custom_id over 64 characters', [request('x'.repeat(65))], /custom_id: String should match pattern/],
    ['a duplicate custom_id', [request('a'), request('a')], /custom_id must be unique/],
    ['streaming', [request('a', { stream: true })], /params.stream: streaming is not supported/],
    ['no requests', [], /at least one request/],
  ])('refuses %s with a 400', async (_case, requests, message) => {
    await expect(anthropic.messages.batches.create({ requests: requests as never })).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(message),
    });
    expect(server.batches.batches).toEqual([]);
  });

  it('refuses metadata, which Message Batches do not take, and lists batches newest first by cursor', async () => {
    await expect(
      anthropic.messages.batches.create({ requests: [request('a')], metadata: { request: 'r' } } as never),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('metadata: Extra inputs are not permitted') });
    expect(server.batches.batches).toEqual([]);
    const created = [];
    for (const customId of ['a', 'b', 'c'])
      created.push(await anthropic.messages.batches.create({ requests: [request(customId)] }));
    const first = await anthropic.messages.batches.list({ limit: 2 });
    expect(first.data.map((batch) => batch.id)).toEqual([created[2].id, created[1].id]);
    expect(first.hasNextPage()).toBe(true);
    const listed = [];
    for await (const batch of anthropic.messages.batches.list({ limit: 2 })) listed.push(batch.id);
    expect(listed).toEqual(created.map((batch) => batch.id).reverse());
  });

  it('refuses more requests than a batch may hold', async () => {
    server.batches.limits.anthropicMaxRequests = 1;
    await expect(anthropic.messages.batches.create({ requests: [request('a'), request('b')] })).rejects.toMatchObject({
      status: 400,
    });
  });

  it('answers a model it does not know with an errored result', async () => {
    server.batches.unknownModels.add('claude-nonexistent');
    const created = await anthropic.messages.batches.create({ requests: [request('a', { model: 'claude-nonexistent' })] });
    await waitFor(
      'the batch to end',
      async () => (await anthropic.messages.batches.retrieve(created.id)).processing_status === 'ended',
    );
    const results = [];
    for await (const result of await anthropic.messages.batches.results(created.id)) results.push(result);
    expect(results[0].result).toMatchObject({ type: 'errored', error: { error: { type: 'not_found_error' } } });
  });

  it('holds a batched request to the online rules: tool blocks without tools, and a tool_use without its result', async () => {
    const toolUse = { type: 'tool_use' as const, id: 'toolu_1', name: 'read_file', input: { path: 'a.txt' } };
    const created = await anthropic.messages.batches.create({
      requests: [
        // tool_use and tool_result blocks, but no tools defined.
        request('no_tools', {
          messages: [
            { role: 'user', content: 'read a.txt' },
            { role: 'assistant', content: [toolUse] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'A' }] },
          ],
        }),
        // A tool_use whose tool_result never comes.
        request('unpaired', {
          tools: [{ name: 'read_file', input_schema: { type: 'object' } }],
          messages: [
            { role: 'user', content: 'read a.txt' },
            { role: 'assistant', content: [toolUse] },
            { role: 'user', content: 'and then?' },
          ],
        }),
      ],
    });
    await waitFor(
      'the batch to end',
      async () => (await anthropic.messages.batches.retrieve(created.id)).processing_status === 'ended',
    );
    const results = [];
    for await (const result of await anthropic.messages.batches.results(created.id)) results.push(result);
    expect(results.map((result) => result.result.type)).toEqual(['errored', 'errored']);
    expect(server.refusals.map(({ refusal }) => refusal)).toEqual([
      'Requests which include `tool_use` or `tool_result` blocks must define tools.',
      expect.stringContaining('tool_use'),
    ]);
  });

  it('expires every request of a batch planned to expire', async () => {
    server.batches.plan({ outcome: 'expired' });
    const created = await anthropic.messages.batches.create({ requests: [request('a')] });
    await waitFor(
      'the batch to end',
      async () => (await anthropic.messages.batches.retrieve(created.id)).processing_status === 'ended',
    );
    expect((await anthropic.messages.batches.retrieve(created.id)).request_counts).toMatchObject({ expired: 1 });
    const results = [];
    for await (const result of await anthropic.messages.batches.results(created.id)) results.push(result);
    expect(results).toEqual([{ custom_id: 'a', result: { type: 'expired' } }]);
  });

  it('has no results before the batch has ended', async () => {
    server.batches.plan({ inProgressMs: 5_000 });
    const created = await anthropic.messages.batches.create({ requests: [request('a')] });
    await expect(anthropic.messages.batches.results(created.id)).rejects.toThrow(/No batch `results_url`/);
  });
});
