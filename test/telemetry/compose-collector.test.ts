import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { builderVersion } from '../support/otel-collector/find-collector';
import { collect } from '../support/cli';

const projectRoot = path.join(__dirname, '..', '..');

// No Docker engine here: the Compose stack's collector configuration is checked by a real collector of the
// image's version (the tests' own build has the same receiver, processor and exporters), and its wiring by reading the file.
it('the Compose stack’s collector configuration is one a collector of the pinned image’s version accepts', async () => {
  const binary = process.env.TEST_OTELCOL_BINARY;
  if (!binary)
    throw new Error(
      `no OpenTelemetry Collector for the tests: ${process.env.TEST_OTELCOL_UNAVAILABLE ?? 'run them through jest'}`,
    );
  const validate = await collect(
    spawn(binary, ['validate', `--config=file:${path.join(projectRoot, 'docker', 'otel-collector.yaml')}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  expect(validate.stderr).toBe('');
  expect(validate.code).toBe(0);

  const compose = await readFile(path.join(projectRoot, 'docker-compose.yml'), 'utf8');
  expect(compose).toContain(`image: otel/opentelemetry-collector:\${OTEL_COLLECTOR_VERSION:-${builderVersion.slice(1)}}`);
  expect(compose).toContain('./docker/otel-collector.yaml:/etc/otelcol/config.yaml:ro');
  // The worker sends to the collector's OTLP/HTTP port, the only protocol durable-agent speaks.
  expect(compose).toContain('OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector:4318');
});
