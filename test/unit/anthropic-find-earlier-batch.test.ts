import Anthropic from '@anthropic-ai/sdk';
import { findEarlierBatch } from '../../providers/anthropic/find-earlier-batch';
import { FakeModelServer } from '../support/fake-model-server';
import { waitFor } from '../support/wait-for';

// The search a retried Anthropic batch submission makes (providers/anthropic/find-earlier-batch.ts), through the real
// SDK client against the fake Message Batches API: which batches it takes for candidates, and where it gives up.

let server: FakeModelServer;
let anthropic: Anthropic;
const signal = new AbortController().signal;
const ours = 'call-ours';

beforeAll(async () => {
  server = await FakeModelServer.start();
  anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL: server.url, maxRetries: 0 });
});
beforeEach(() => {
  server.reset();
  server.batches.always({ inProgressMs: 60_000, finalizingMs: 10 });
});
afterAll(() => server.close());

const request = (customId: string) => ({
  custom_id: customId,
  params: { model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user' as const, content: 'hi' }] },
});
const createdBatch = async (...customIds: string[]) =>
  (await anthropic.messages.batches.create({ requests: customIds.map(request) })).id;
const resultReads = () => server.batches.calls.filter((call) => call.path.endsWith('/results'));

it('takes only batches of one request for candidates: a batch of two holding our id is not ours', async () => {
  await createdBatch(ours, 'call-other');
  const single = await createdBatch('call-other-run');
  const found = await findEarlierBatch(anthropic, ours, { since: Date.now(), canWait: true }, signal);
  expect(found).toEqual({ search: { customId: ours, pending: [single], rejected: [] } });
});

it('does not look past ten minutes before the first attempt', async () => {
  await createdBatch(ours);
  const found = await findEarlierBatch(anthropic, ours, { since: Date.now() + 11 * 60_000, canWait: true }, signal);
  expect(found).toBeUndefined();
});

it('creates as before when the workflow cannot wait for a pending candidate', async () => {
  await createdBatch(ours);
  expect(await findEarlierBatch(anthropic, ours, { since: Date.now(), canWait: false }, signal)).toBeUndefined();
});

it('adopts an ended candidate holding our id, and passes over a gone one and one read before', async () => {
  server.batches.plan({ inProgressMs: 10, finalizingMs: 10, outcome: 'expired' });
  const mine = await createdBatch(ours);
  const readBefore = await createdBatch('call-read-before');
  await waitFor('our batch to end', async () => (await anthropic.messages.batches.retrieve(mine)).processing_status === 'ended');
  const found = await findEarlierBatch(
    anthropic,
    ours,
    { since: Date.now(), pending: ['msgbatch_deleted'], rejected: [readBefore], canWait: true },
    signal,
  );
  expect(found).toEqual({ id: mine, customId: ours });
  expect(resultReads().map((call) => call.path)).toEqual([`/v1/messages/batches/${mine}/results`]);
});

it('gives up, reading nothing, past twenty candidates', async () => {
  for (let index = 0; index < 21; index++) await createdBatch(`call-other-${index}`);
  expect(await findEarlierBatch(anthropic, ours, { since: Date.now(), canWait: true }, signal)).toBeUndefined();
  expect(server.batches.calls.filter((call) => call.method === 'GET' && call.path !== '/v1/messages/batches')).toEqual([]);
});
