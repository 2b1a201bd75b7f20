// `npm run otelcol:install`: makes sure the tests' OpenTelemetry Collector is available (found, or built and cached) and prints its path.
import { ensureCollector } from './find-collector';

ensureCollector((line) => console.error(line)).then(
  (binary) => console.log(binary),
  (error: Error) => {
    console.error(`Could not provide the OpenTelemetry Collector: ${error.message}`);
    process.exit(1);
  },
);
