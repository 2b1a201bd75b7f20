import { DefaultLogger, Runtime } from '@temporalio/worker';

// Worker lifecycle logs drown test output; warnings and errors still show.
Runtime.install({ logger: new DefaultLogger('WARN') });
