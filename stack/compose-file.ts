import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

// `npm run stack` takes every value it shares with docker-compose.yml from that file (image versions, the
// database user, the namespace's retention, the dynamic config, the search attribute, the worker's environment),
// so the two cannot drift: a change to the compose file changes the stack, and a test runs the stack.

export const projectRoot = path.join(__dirname, '..');
export const composeFile = path.join(projectRoot, 'docker-compose.yml');

interface ComposeService {
  image?: string;
  environment?: Record<string, string> | string[];
  volumes?: string[];
  command?: string[] | string;
}

export interface ComposeValues {
  /** The versions the images are pinned to, without a leading v: "1.29.1". */
  temporalVersion: string;
  temporalUiVersion: string;
  /** The PostgreSQL image's version ("16.13"): `npm run stack` runs the machine's PostgreSQL and says when it differs. */
  postgresVersion: string;
  postgresUser: string;
  postgresPassword: string;
  /** The temporal service's environment (the auto-setup image's settings: DB, DEFAULT_NAMESPACE_RETENTION…). */
  temporalEnvironment: Record<string, string>;
  /** The file on the host that the compose file mounts where DYNAMIC_CONFIG_FILE_PATH points. */
  dynamicConfigFile: string;
  /** The shell command of the one-shot service that creates the search attribute. */
  searchAttributeCommand: string;
  /** The Temporal Web UI's environment (TEMPORAL_CORS_ORIGINS, TEMPORAL_CODEC_ENDPOINT…). */
  uiEnvironment: Record<string, string>;
  minioUser: string;
  minioPassword: string;
  bucket: string;
  /** The host file the compose file mounts as the collector's configuration. */
  collectorConfigFile: string;
  /** The worker's environment as the compose file gives it, variables unset on the host left out. */
  workerEnvironment: Record<string, string>;
  codecEnvironment: Record<string, string>;
}

/** Reads docker-compose.yml, resolving ${VAR:-default} and ${VAR:+alt} against `env` as Compose does. */
export function readComposeFile(env: NodeJS.ProcessEnv = process.env, file = composeFile): ComposeValues {
  const compose = parse(readFileSync(file, 'utf8')) as { services: Record<string, ComposeService> };
  const service = (name: string): ComposeService => {
    const found = compose.services[name];
    if (!found) throw new Error(`${file} has no service "${name}"`);
    return found;
  };
  const environment = (name: string) => serviceEnvironment(service(name), env);
  const temporal = service('temporal');
  const temporalEnvironment = environment('temporal');
  const dynamicConfigPath = temporalEnvironment.DYNAMIC_CONFIG_FILE_PATH;
  const dynamicConfigVolume = (temporal.volumes ?? []).find((volume) => volume.split(':')[1] === dynamicConfigPath);
  if (!dynamicConfigVolume) throw new Error(`${file}: no volume of the temporal service is mounted at ${dynamicConfigPath}`);
  const collectorVolume = (service('otel-collector').volumes ?? []).find((volume) => volume.includes(':/etc/otelcol/'));
  if (!collectorVolume) throw new Error(`${file}: the otel-collector service mounts no configuration file`);
  const minio = environment('minio');
  const postgres = environment('postgresql');
  const bucketService = environment('minio-create-bucket');
  return {
    temporalVersion: imageTag(temporal, env),
    temporalUiVersion: imageTag(service('temporal-ui'), env),
    postgresVersion: imageTag(service('postgresql'), env),
    postgresUser: postgres.POSTGRES_USER,
    postgresPassword: postgres.POSTGRES_PASSWORD,
    temporalEnvironment,
    dynamicConfigFile: path.resolve(path.dirname(file), dynamicConfigVolume.split(':')[0]),
    searchAttributeCommand: shellCommand(service('temporal-search-attributes')),
    uiEnvironment: environment('temporal-ui'),
    minioUser: minio.MINIO_ROOT_USER,
    minioPassword: minio.MINIO_ROOT_PASSWORD,
    bucket: bucketService.AGENT_S3_BUCKET,
    collectorConfigFile: path.resolve(path.dirname(file), collectorVolume.split(':')[0]),
    workerEnvironment: environment('worker'),
    codecEnvironment: environment('codec-server'),
  };
}

/** A service's environment, in either of Compose's two forms; a bare `NAME` passes the host's value through. */
function serviceEnvironment(service: ComposeService, env: NodeJS.ProcessEnv): Record<string, string> {
  const entries: [string, string | undefined][] = Array.isArray(service.environment)
    ? service.environment.map((entry) => {
        const equals = entry.indexOf('=');
        return equals < 0 ? [entry, env[entry]] : [entry.slice(0, equals), interpolate(entry.slice(equals + 1), env)];
      })
    : Object.entries(service.environment ?? {}).map(([name, value]) => [name, interpolate(String(value), env)]);
  return Object.fromEntries(entries.filter((entry): entry is [string, string] => entry[1] !== undefined));
}

function imageTag(service: ComposeService, env: NodeJS.ProcessEnv): string {
  const image = interpolate(service.image ?? '', env);
  return image.slice(image.lastIndexOf(':') + 1).replace(/^v/, '');
}

/** The `sh -c` script of a one-shot service, with Compose's `$$` (a literal `$`) resolved. */
function shellCommand(service: ComposeService): string {
  const command = Array.isArray(service.command) ? service.command.join(' ') : (service.command ?? '');
  return command.replaceAll('$$', '$');
}

/** Compose's interpolation: ${VAR}, ${VAR:-default} (unset or empty), ${VAR:+alternative} (set and non-empty), $$. */
export function interpolate(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:\+)([^}]*))?\}/g, (match, name, operator, operand) => {
    if (match === '$$') return '$$';
    const current = env[name as string];
    if (operator === ':-') return current ? current : (operand as string);
    if (operator === ':+') return current ? (operand as string) : '';
    return current ?? '';
  });
}
