// `npm run stack:install`: makes sure the Temporal server, temporal-sql-tool and the Web UI server that `npm run stack`
// runs are built (from the Go module proxy, at the versions docker-compose.yml pins) and prints where they are.
import { ensureTemporalServer } from './temporal-server';

ensureTemporalServer((line) => console.error(line)).then(
  (build) => console.log(`${build.server}\n${build.sqlTool}\n${build.uiServer}`),
  (error: Error) => {
    console.error(`Could not provide the Temporal server: ${error.message}`);
    process.exit(1);
  },
);
