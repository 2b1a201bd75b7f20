// Makes sure Temporal's time-skipping test server is available for the tests (found, or fetched from Maven Central
// and cached) and prints its launcher's path: `npx tsx test/support/test-server/install.ts`.
import { ensureTestServer } from './find-test-server';

ensureTestServer((line) => console.error(line)).then(
  (launcher) => console.log(launcher),
  (error: Error) => {
    console.error(`Could not provide the test server: ${error.message}`);
    process.exit(1);
  },
);
