import { stackBanner, type BannerFacts } from '../../stack/banner';
import { readComposeFile } from '../../stack/compose-file';
import { postgresBinDirectory, postgresVersion } from '../../stack/postgres';

// What `npm run stack` prints once it is up (stack/main.ts), over plain values: the exports a second terminal pastes
// must send the CLI's links to this Web UI, and the banner says where the workspace root is and which PostgreSQL runs.

const compose = readComposeFile({});

function facts(postgresVersionRunning: string): BannerFacts {
  return {
    postgres: { host: '127.0.0.1', port: 41234, version: postgresVersionRunning, binaries: '/usr/lib/postgresql/15/bin' },
    compose,
    temporal: { address: '127.0.0.1:7233' } as BannerFacts['temporal'],
    webUiUrl: 'http://127.0.0.1:8080',
    s3Endpoint: 'http://127.0.0.1:9000',
    collector: { endpoint: 'http://127.0.0.1:4318', logFile: '/data/otel.log' },
    workers: [{ pid: 42, logFile: '/data/worker-1.log' }] as BannerFacts['workers'],
    workspaceRoot: '/work/main/workspace',
    clientEnvironment: { TEMPORAL_ADDRESS: '127.0.0.1:7233', TEMPORAL_UI_URL: 'http://127.0.0.1:8080' },
  };
}

it("reads the compose file's pinned PostgreSQL version", () => {
  expect(compose.postgresVersion).toMatch(/^16\.\d+$/);
});

it('exports TEMPORAL_UI_URL and names the workspace root, in the example command too', () => {
  const banner = stackBanner(facts('15.14'), '/data');
  expect(banner).toContain('  export TEMPORAL_UI_URL=http://127.0.0.1:8080');
  expect(banner).toMatch(/Workspace root {4}\/work\/main\/workspace /);
  expect(banner).toContain('npm run agent -- run "Say hello" --workspace /work/main/workspace');
});

it('says which PostgreSQL runs, and that the compose file pins another major version', () => {
  const banner = stackBanner(facts('15.14'), '/data');
  expect(banner).toContain(
    `PostgreSQL        127.0.0.1:41234 (user temporal): this machine's PostgreSQL 15.14, /usr/lib/postgresql/15/bin; docker-compose.yml pins ${compose.postgresVersion}`,
  );
  expect(stackBanner(facts(compose.postgresVersion), '/data')).not.toContain('docker-compose.yml pins');
});

it("reads this machine's PostgreSQL version from its postgres program", () => {
  let binaries: string;
  try {
    binaries = postgresBinDirectory();
  } catch {
    return; // No PostgreSQL here: `npm run stack` says how to install it.
  }
  expect(postgresVersion(binaries)).toMatch(/^\d+(\.\d+)?/);
});
