/**
 * `npm run generate:input-schema`: writes core/resolved-input.schema.json, the JSON Schema of the
 * workflow's input, from its zod schema (core/input.ts). The workflow checks its input against
 * this file (core/input-check.ts) so that zod stays out of the workflow bundle; a client in
 * another language can check against it too. Run it after changing the schema: a unit test fails
 * until the file matches.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { resolvedInputJsonSchemaFromZod } from '../core/input';

const file = path.join(__dirname, '..', 'core', 'resolved-input.schema.json');

writeFile(file, `${JSON.stringify(resolvedInputJsonSchemaFromZod(), null, 2)}\n`).then(
  () => console.log(`wrote ${path.relative(process.cwd(), file)}`),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);
