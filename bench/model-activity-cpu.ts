// `npx tsx bench/model-activity-cpu.ts`: CPU per model activity call, ours (the openai provider, a file transcript
// store, conversations of MESSAGES=4 messages) against the floor session's (one plain fetch), CALLS=300 per round,
// 6 alternating rounds, in one process with the fake model server (MockActivityEnvironment: no Temporal server, so
// it runs on a machine too busy for the sessions benchmark). PROFILE=<file> writes a V8 CPU profile of the rounds.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { FakeModelServer, openaiReply } from '../test/support/fake-model-server';
import { createModelActivities, type ModelCallInput } from '../activities/model/call-model';
import { createAgentRegistry } from '../agents/registry';
import { FileTranscriptStore } from '../storage/transcript/transcript-store';
import { loadPrices } from '../pricing/load-prices';
import { floorSessionActivities } from './floor/session-activities';
import { median } from './support/stats';

async function main() {
  const calls = Number(process.env.CALLS || 300);
  const model = await FakeModelServer.start();
  model.respondWith(() => {
    model.requests.length = 0;
    return openaiReply({ content: 'an answer' });
  });
  const env = { OPENAI_BASE_URL: `${model.url}/v1`, OPENAI_API_KEY: 'sk-bench' };
  const directory = await mkdtemp(path.join(os.tmpdir(), 'perf-transcripts-'));
  const ours = createModelActivities({
    registry: createAgentRegistry({}),
    env,
    transcripts: new FileTranscriptStore(directory),
    prices: loadPrices(env),
  });
  const floor = floorSessionActivities(`${model.url}/v1`);
  // A new environment per call, as each activity has its own context (and cancellation signal) in a worker.
  const activityEnv = {
    run: <A extends unknown[], R>(fn: (...args: A) => Promise<R>, ...args: A) =>
      new MockActivityEnvironment({
        workflowExecution: { workflowId: 'perf-session', runId: 'r' },
        startToCloseTimeoutMs: 60_000,
      } as never).run(fn as never, ...(args as unknown as never[])) as Promise<R>,
  };
  const messagesPerSession = Number(process.env.MESSAGES || 4);
  let transcript: { base?: string; baseLength: number } = { baseLength: 0 };
  const oursOnce = async (index: number) => {
    const input: ModelCallInput = {
      model: 'openai:sessions-1s',
      agent: 'default',
      instructions: 'You are a helpful agent.',
      tools: [],
      toolChoice: 'auto',
      modelSettings: {},
      view: { compactAfterTurns: 3 },
      approval: { tools: [], skip: false },
      maxToolCalls: 64,
      workspace: directory,
      transcript: { ...transcript, messages: [{ role: 'user', content: `message ${index}` }] },
    };
    const result = await activityEnv.run(ours.callModel, input);
    transcript =
      (index + 1) % messagesPerSession === 0
        ? { baseLength: 0 }
        : { base: result.transcript!.id, baseLength: result.transcript!.length };
  };
  const floorOnce = (index: number) => activityEnv.run(floor.callModel, `message ${index}`);
  for (let index = 0; index < 30; index++) {
    await oursOnce(index);
    await floorOnce(index);
  }
  const session = process.env.PROFILE ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 50 });
    await session.post('Profiler.start');
  }
  const per = { ours: [] as number[], floor: [] as number[] };
  for (let round = 0; round < 6; round++) {
    for (const kind of round % 2 ? (['floor', 'ours'] as const) : (['ours', 'floor'] as const)) {
      const cpu = process.cpuUsage();
      for (let index = 0; index < calls; index++) await (kind === 'ours' ? oursOnce(index) : floorOnce(index));
      const used = process.cpuUsage(cpu);
      per[kind].push((used.user + used.system) / 1000 / calls);
    }
  }
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(process.env.PROFILE!, JSON.stringify(profile));
  }
  console.log(
    `CPU per call (this process, fake model server included): ours ${per.ours.map((ms) => ms.toFixed(3)).join(' ')}; ` +
      `floor ${per.floor.map((ms) => ms.toFixed(3)).join(' ')}`,
  );
  console.log(
    `median: ours ${median(per.ours).toFixed(3)} ms, floor ${median(per.floor).toFixed(3)} ms, ours - floor ${(median(per.ours) - median(per.floor)).toFixed(3)} ms`,
  );
  await model.close();
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
