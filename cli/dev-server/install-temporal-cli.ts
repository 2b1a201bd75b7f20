// `npm run temporal:cli`: makes sure a Temporal CLI is available (found, or built and cached) and prints its path.
import { ensureTemporalCli } from './find-temporal-cli';

ensureTemporalCli((line) => console.error(line)).then(
  (executable) => console.log(executable.type === 'existing-path' ? executable.path : 'SDK download (cached-download)'),
  (error: Error) => {
    console.error(`Could not provide a Temporal CLI: ${error.message}`);
    process.exit(1);
  },
);
