// Temporal's worker logs each state change at INFO; a test run shows only warnings and errors.
import { DefaultLogger, Runtime } from '@temporalio/worker';

Runtime.install({ logger: new DefaultLogger('WARN') });
