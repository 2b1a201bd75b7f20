import { DefaultLogger, Runtime } from '@temporalio/worker';

// Worker lifecycle logs drown test output; errors still show.
Runtime.install({ logger: new DefaultLogger('ERROR') });
