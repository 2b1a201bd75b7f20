// `npm run stack`: docker-compose.yml's topology as processes on this machine, without Docker: PostgreSQL, the
// Temporal server on it (schemas, the default namespace, the AgentForkedFrom search attribute), the Web UI, MinIO
// with the bucket, the OpenTelemetry Collector, the codec server (with AGENT_ENCRYPTION_KEYS) and N workers.
// Ctrl-C (or SIGTERM) stops everything. See docs/docker-compose.md.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from './compose-file';
import { stackBanner } from './banner';
import { startStack } from './stack';

const usage = `Usage: npm run stack -- [--workers N] [--dir DIR] [--free-ports]
  --workers N    agent workers to start (default: 1, as the compose file)
  --dir DIR      where PostgreSQL, MinIO and the logs keep their files (default: agent-data/stack); reused on the next start
  --free-ports   free loopback ports for everything instead of the compose file's 7233, 8080, 9000, 4318 and 8888`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      workers: { type: 'string', default: '1' },
      dir: { type: 'string', default: path.join(projectRoot, 'agent-data', 'stack') },
      'free-ports': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return console.log(usage);
  const workers = Number(values.workers);
  if (!Number.isInteger(workers) || workers < 0) {
    console.error(`--workers must be a whole number, got "${values.workers}"\n${usage}`);
    process.exit(2);
  }
  const stack = await startStack({
    directory: values.dir,
    workers,
    freePorts: values['free-ports'],
    log: (line) => console.error(line),
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`\n${signal}: stopping the workers (they drain), the servers, then PostgreSQL...`);
    stack.stop().then(
      () => process.exit(0),
      (error: Error) => {
        console.error(`stopping failed: ${error.message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  console.log(stackBanner(stack, path.resolve(values.dir)));
}

main().catch((error: Error) => {
  console.error(`npm run stack failed: ${error.message}`);
  process.exit(1);
});
