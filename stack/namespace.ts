import path from 'node:path';
import type { ComposeValues } from './compose-file';
import { runToEnd } from './run-to-end';

/**
 * What happens after the server is up in the compose file: the auto-setup image registers the `default`
 * namespace with DEFAULT_NAMESPACE_RETENTION, the temporal service's healthcheck describes it, and the
 * temporal-search-attributes service runs its shell command. The last two run here exactly as the compose file
 * spells them, with a `temporal` CLI on PATH and TEMPORAL_ADDRESS set, as in the image.
 */
export async function registerNamespace(cli: string, address: string, compose: ComposeValues): Promise<void> {
  if (path.basename(cli) !== 'temporal')
    throw new Error(`the compose file's commands call \`temporal\`; ${cli} is named otherwise`);
  const env = {
    PATH: `${path.dirname(cli)}${path.delimiter}${process.env.PATH}`,
    HOME: process.env.HOME,
    TEMPORAL_ADDRESS: address,
  };
  const shell = (script: string) => runToEnd('sh', ['-c', script], { env });
  const namespace = 'default';
  const retention = compose.temporalEnvironment.DEFAULT_NAMESPACE_RETENTION || '24h';
  // auto-setup.sh: create the namespace unless it exists (a restart on the same database).
  await shell(
    `temporal operator namespace describe --namespace ${namespace} >/dev/null 2>&1 || temporal operator namespace create --namespace ${namespace} --retention ${retention} --description "Default namespace for Temporal Server."`,
  );
  await shell('temporal operator namespace describe --namespace default >/dev/null');
  await shell(compose.searchAttributeCommand);
}
