import path from 'node:path';
import type { ComposeValues } from './compose-file';
import { runToEnd } from './run-to-end';

/**
 * Creates the `temporal` and `temporal_visibility` databases and brings their schemas to the server's version, as
 * the auto-setup image does before it starts the server: temporal-sql-tool create, setup-schema -v 0.0 (the
 * versioning tables), update-schema -d <the module's versioned schema directory>. On a database set up already,
 * create fails ("already exists": ignored) and update-schema applies only what is missing.
 */
export async function setUpSchemas(
  sqlTool: string,
  schemaDirectory: string,
  compose: ComposeValues,
  database: { host: string; port: number },
): Promise<void> {
  const databases = [
    { name: compose.temporalEnvironment.DBNAME || 'temporal', schema: 'temporal' },
    { name: compose.temporalEnvironment.VISIBILITY_DBNAME || 'temporal_visibility', schema: 'visibility' },
  ];
  // The password travels in the environment, not on the command line where `ps` would show it.
  const env = {
    PATH: process.env.PATH,
    SQL_PLUGIN: compose.temporalEnvironment.DB,
    SQL_HOST: database.host,
    SQL_PORT: String(database.port),
    SQL_USER: compose.temporalEnvironment.POSTGRES_USER,
    SQL_PASSWORD: compose.temporalEnvironment.POSTGRES_PWD,
  };
  for (const { name, schema } of databases) {
    const tool = (args: string[]) => runToEnd(sqlTool, ['--db', name, ...args], { env });
    await tool(['create']).catch((error: Error) => {
      if (!/already exists/.test(error.message)) throw error;
    });
    await tool(['setup-schema', '-v', '0.0']);
    await tool(['update-schema', '-d', path.join(schemaDirectory, schema, 'versioned')]);
  }
}
