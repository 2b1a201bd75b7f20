// `npx tsx bench/count-sandbox-promises.ts`: the promises the workflow sandbox makes while replaying the recorded
// corpus (test/replay/histories), with this tree's workflow code. The SDK's promise hook takes a stack trace of each
// one, live and at every replay, so their number is a cost of its own; unlike a time, it does not move with the
// machine's load. EACH=1 prints each history's count, ONLY=<part of a file name> replays only those, PROFILE=<file>
// writes a V8 CPU profile of the replays. A replay error is printed too (the corpus must replay unchanged).
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import v8 from 'node:v8';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { workflowsPath } from '../worker/create-worker';
import { withSharedWorkflowModules } from '../worker/shared-workflow-modules';
import { quietLogger } from './support/log';

let sandboxPromises = 0;
v8.promiseHooks.createHook({
  // The sandbox's promises are made by its own Promise (a vm context's); this thread's are not counted.
  init(promise) {
    if (promise.constructor !== Promise) sandboxPromises++;
  },
});

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const directory = path.join(__dirname, '..', 'test', 'replay', 'histories');
  const only = process.env.ONLY;
  const files = (await readdir(directory)).filter((file) => file.endsWith('.json') && (!only || file.includes(only))).sort();
  const { code } = await bundleWorkflowCode(withSharedWorkflowModules({ workflowsPath, logger: quietLogger }));
  let total = 0;
  const session = process.env.PROFILE ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
  }
  const cpu = process.cpuUsage();
  for (const file of files) {
    const history = historyFromJSON(JSON.parse(await readFile(path.join(directory, file), 'utf8')));
    const [scenario, child] = file
      .replace(/\.json$/, '')
      .replace(/-run\d+$/, '')
      .split('-child-');
    const workflowId = `replay-${scenario}${child ? `/${child}` : ''}`;
    const before = sandboxPromises;
    for await (const result of Worker.runReplayHistories({ workflowBundle: { code } }, [{ workflowId, history }]))
      if (result.error) console.log(`${file}: ERROR ${result.error.message.split('\n')[0]}`);
    const count = sandboxPromises - before;
    total += count;
    if (process.env.EACH) console.log(`${file}: ${count}`);
  }
  const used = process.cpuUsage(cpu);
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(process.env.PROFILE!, JSON.stringify(profile));
  }
  console.log(`cpu ${((used.user + used.system) / 1000).toFixed(0)} ms`);
  console.log(`total sandbox promises over ${files.length} histories: ${total}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
