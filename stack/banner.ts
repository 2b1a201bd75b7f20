import type { Stack } from './stack';

/** What the banner reads of a running stack (plain values, so a test can give them). */
export type BannerFacts = Pick<
  Stack,
  | 'postgres'
  | 'compose'
  | 'temporal'
  | 'webUiUrl'
  | 's3Endpoint'
  | 'collector'
  | 'codecServerUrl'
  | 'workers'
  | 'workspaceRoot'
  | 'clientEnvironment'
>;

/**
 * What `npm run stack` prints once everything is up: where each part listens, which PostgreSQL runs (the machine's,
 * which may not be the version docker-compose.yml pins), the workspace root the workers serve, and the exports that
 * point another terminal's CLI at all of it, TEMPORAL_UI_URL included so that its run links open this Web UI.
 */
export function stackBanner(stack: BannerFacts, dataDirectory: string): string {
  const { postgres, compose } = stack;
  const pinned =
    majorOf(postgres.version) === majorOf(compose.postgresVersion) ? '' : `; docker-compose.yml pins ${compose.postgresVersion}`;
  const exports = Object.entries(stack.clientEnvironment).map(
    ([name, value]) => `  export ${name}=${name === 'AGENT_ENCRYPTION_KEYS' ? "'…'  # the same keys" : value}`,
  );
  return `
The durable-agent stack is up (logs and data in ${dataDirectory}):
  Temporal server   ${stack.temporal.address} (PostgreSQL-backed, namespace default)
  Temporal Web UI   ${stack.webUiUrl}
  PostgreSQL        ${postgres.host}:${postgres.port} (user ${compose.postgresUser}): this machine's PostgreSQL ${postgres.version}, ${postgres.binaries}${pinned} (POSTGRES_BIN_DIR chooses another)
  MinIO (S3)        ${stack.s3Endpoint}, bucket ${compose.bucket}
  OTel Collector    ${stack.collector.endpoint} (OTLP/HTTP; spans printed to ${stack.collector.logFile})
  Codec server      ${stack.codecServerUrl ?? 'not started: AGENT_ENCRYPTION_KEYS is not set'}
  Workers           ${stack.workers.map((worker) => `pid ${worker.pid} (${worker.logFile})`).join(', ') || 'none'}
  Workspace root    ${stack.workspaceRoot} (the workers' files: a run's --workspace is this directory or one inside it)

Use it from another terminal:
${exports.join('\n')}
  npm run agent -- run "Say hello" --workspace ${stack.workers.length ? stack.workspaceRoot : '…'}

Ctrl-C stops everything.`;
}

function majorOf(version: string): string {
  return version.split('.')[0];
}
