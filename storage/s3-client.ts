import { S3Client } from '@aws-sdk/client-s3';
import type { S3StorageSettings } from './storage-settings';

/**
 * The one S3 client a process uses for both stores. Settings not given here
 * (profile, SSO, IAM roles, retries, checksums) come from the AWS SDK's own
 * environment variables and config files, as for the aws CLI.
 */
export function createS3Client(settings: S3StorageSettings): S3Client {
  // A custom endpoint ignores the region, but the SDK needs one to sign requests.
  const region = settings.region ?? (settings.endpoint ? 'us-east-1' : undefined);
  return new S3Client({
    ...(settings.endpoint && {
      endpoint: settings.endpoint,
      // S3-compatible servers (MinIO, Ceph) are addressed by path: bucket names are not in their DNS.
      forcePathStyle: true,
    }),
    ...(region && { region }),
    ...(settings.credentials && { credentials: settings.credentials }),
  });
}
