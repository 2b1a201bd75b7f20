import { ConfigurationError } from '../../core/errors';
import { createS3Client } from '../../storage/s3-client';
import { storageSettings, type S3StorageSettings } from '../../storage/storage-settings';

const s3 = { AGENT_S3_BUCKET: 'agent-payloads' };

describe('storage settings from the environment', () => {
  it('keeps both stores in local directories when no bucket is named', () => {
    expect(storageSettings({ AGENT_PAYLOAD_DIR: '/data/payloads', AGENT_TRANSCRIPT_DIR: '/data/transcripts' })).toEqual({
      kind: 'local',
      payloadDirectory: '/data/payloads',
      transcriptDirectory: '/data/transcripts',
    });
    expect(storageSettings({ XDG_DATA_HOME: '/home/me/.data' })).toMatchObject({
      payloadDirectory: '/home/me/.data/durable-agent/payloads',
      transcriptDirectory: '/home/me/.data/durable-agent/transcripts',
    });
  });

  it('uses the bucket for both stores when AGENT_S3_BUCKET is set, whatever the local directories say', () => {
    expect(storageSettings({ ...s3, AGENT_PAYLOAD_DIR: '/data/payloads' })).toEqual({
      kind: 's3',
      bucket: 'agent-payloads',
      prefix: '',
      endpoint: undefined,
      region: undefined,
      credentials: undefined,
    });
  });

  it('reads the standard AWS variables, the S3-specific endpoint first', () => {
    expect(
      storageSettings({
        ...s3,
        AWS_ENDPOINT_URL: 'http://general:9000',
        AWS_ENDPOINT_URL_S3: 'http://minio:9000',
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'AKIA',
        AWS_SECRET_ACCESS_KEY: 'secret',
        AWS_SESSION_TOKEN: 'token',
      }),
    ).toMatchObject({
      endpoint: 'http://minio:9000',
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKIA', secretAccessKey: 'secret', sessionToken: 'token' },
    });
  });

  it('ends the key prefix with a slash and drops a leading one', () => {
    expect(storageSettings({ ...s3, AGENT_S3_PREFIX: 'prod/agents' })).toMatchObject({ prefix: 'prod/agents/' });
    expect(storageSettings({ ...s3, AGENT_S3_PREFIX: '/prod/' })).toMatchObject({ prefix: 'prod/' });
  });

  it.each([
    [{ AGENT_S3_PREFIX: 'prod/' }, 'AGENT_S3_PREFIX is set but AGENT_S3_BUCKET is not'],
    [{ AGENT_S3_BUCKET: 'Agent_Payloads' }, 'AGENT_S3_BUCKET "Agent_Payloads" is not a valid bucket name'],
    [{ ...s3, AWS_ENDPOINT_URL: 'minio:9000' }, 'AWS_ENDPOINT_URL "minio:9000" is not an http:// or https:// URL'],
    [{ ...s3, AWS_ACCESS_KEY_ID: 'AKIA' }, 'set both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or neither'],
  ])('refuses %j with a configuration error', (env, message) => {
    expect(() => storageSettings(env)).toThrow(ConfigurationError);
    expect(() => storageSettings(env)).toThrow(message);
  });
});

describe('the S3 client built from the settings', () => {
  it('addresses an S3-compatible endpoint by path, in us-east-1 unless told otherwise', async () => {
    const client = createS3Client(storageSettings({ ...s3, AWS_ENDPOINT_URL: 'http://minio:9000' }) as S3StorageSettings);
    expect(client.config.forcePathStyle).toBe(true);
    expect(await client.config.region()).toBe('us-east-1');
    const inRegion = createS3Client(
      storageSettings({ ...s3, AWS_ENDPOINT_URL: 'http://minio:9000', AWS_REGION: 'eu-west-1' }) as S3StorageSettings,
    );
    expect(await inRegion.config.region()).toBe('eu-west-1');
  });

  it('leaves AWS S3 virtual-hosted and passes the credentials it was given', async () => {
    const client = createS3Client(
      storageSettings({
        ...s3,
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'AKIA',
        AWS_SECRET_ACCESS_KEY: 'secret',
      }) as S3StorageSettings,
    );
    expect(client.config.forcePathStyle).toBeFalsy();
    expect(await client.config.credentials()).toMatchObject({ accessKeyId: 'AKIA', secretAccessKey: 'secret' });
  });
});
