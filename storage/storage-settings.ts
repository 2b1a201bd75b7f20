import os from 'node:os';
import path from 'node:path';
import { ConfigurationError } from '../core/errors';

/**
 * Where a process keeps the two stores: large payloads (Temporal external storage,
 * durable state) and the model activity's transcripts (a cache of conversations).
 * With AGENT_S3_BUCKET both live in that bucket and every worker and client on any
 * machine shares them; without it, both are local directories (one machine).
 */
export type StorageSettings = LocalStorageSettings | S3StorageSettings;

export interface LocalStorageSettings {
  kind: 'local';
  payloadDirectory: string;
  transcriptDirectory: string;
}

export interface S3StorageSettings {
  kind: 's3';
  bucket: string;
  /** '' or a prefix ending in '/', in front of every key this project writes. */
  prefix: string;
  /** AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL: an S3-compatible server (MinIO, Ceph, R2…); unset for AWS S3. */
  endpoint?: string;
  /** AWS_REGION; unset leaves it to the AWS SDK (its config file), or us-east-1 for a custom endpoint. */
  region?: string;
  /** From AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN; unset uses the AWS SDK's default chain (profile, SSO, IAM role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

export function storageSettings(env: NodeJS.ProcessEnv = process.env): StorageSettings {
  const bucket = env.AGENT_S3_BUCKET?.trim();
  if (!bucket) {
    if (env.AGENT_S3_PREFIX)
      throw new ConfigurationError('AGENT_S3_PREFIX is set but AGENT_S3_BUCKET is not: name the bucket too');
    return { kind: 'local', payloadDirectory: payloadDirectory(env), transcriptDirectory: transcriptDirectory(env) };
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new ConfigurationError(
      `AGENT_S3_BUCKET "${bucket}" is not a valid bucket name (3 to 63 characters: lower-case letters, digits, dots and hyphens)`,
    );
  }
  return {
    kind: 's3',
    bucket,
    prefix: keyPrefix(env.AGENT_S3_PREFIX),
    endpoint: endpoint(env),
    region: env.AWS_REGION || undefined,
    credentials: credentials(env),
  };
}

function keyPrefix(value: string | undefined): string {
  const prefix = (value ?? '').trim().replace(/^\/+/, '');
  if (!prefix) return '';
  return prefix.endsWith('/') ? prefix : `${prefix}/`;
}

function endpoint(env: NodeJS.ProcessEnv): string | undefined {
  const [name, value] = env.AWS_ENDPOINT_URL_S3
    ? ['AWS_ENDPOINT_URL_S3', env.AWS_ENDPOINT_URL_S3]
    : ['AWS_ENDPOINT_URL', env.AWS_ENDPOINT_URL];
  if (!value) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new ConfigurationError(`${name} "${value}" is not an http:// or https:// URL`);
  }
  return value;
}

function credentials(env: NodeJS.ProcessEnv): S3StorageSettings['credentials'] {
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN: sessionToken } = env;
  if (!accessKeyId && !secretAccessKey) return undefined;
  if (!accessKeyId || !secretAccessKey) {
    throw new ConfigurationError(
      'set both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or neither (to use the AWS SDK credential chain)',
    );
  }
  return { accessKeyId, secretAccessKey, ...(sessionToken && { sessionToken }) };
}

function dataDirectory(env: NodeJS.ProcessEnv): string {
  return path.join(env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share'), 'durable-agent');
}

function payloadDirectory(env: NodeJS.ProcessEnv): string {
  return env.AGENT_PAYLOAD_DIR || path.join(dataDirectory(env), 'payloads');
}

function transcriptDirectory(env: NodeJS.ProcessEnv): string {
  return env.AGENT_TRANSCRIPT_DIR || path.join(dataDirectory(env), 'transcripts');
}

/** Where the stores are, for logs and error messages. */
export function describeStorage(settings: StorageSettings): string {
  return settings.kind === 's3'
    ? `s3://${settings.bucket}/${settings.prefix}${settings.endpoint ? ` at ${settings.endpoint}` : ''}`
    : `payloads in ${settings.payloadDirectory}, transcripts in ${settings.transcriptDirectory}`;
}
