// Imported first by each entry point (index.ts, web/, testing/, the CLI): fails with the fix before Temporal's
// packages load, when the app has two copies of one of them (temporal-copies.ts).
import { packageRoot } from './package-root';
import { checkOneTemporalCopy } from './temporal-copies';

checkOneTemporalCopy(packageRoot);
