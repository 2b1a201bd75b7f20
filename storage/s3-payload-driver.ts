import type { S3Client } from '@aws-sdk/client-s3';
import {
  StorageDriverClaim,
  type Payload,
  type StorageDriver,
  type StorageDriverRetrieveContext,
  type StorageDriverStoreContext,
} from '@temporalio/common';
import { S3StorageDriver, type S3StorageDriverClient } from '@temporalio/external-storage-s3';
import { AwsSdkS3StorageDriverClient } from '@temporalio/external-storage-s3-aws-sdk';
import { s3PayloadDriverName } from './driver-names';

/**
 * Temporal's official S3 driver (`@temporalio/external-storage-s3`), writing its
 * objects under AGENT_S3_PREFIX. The official driver names objects
 * `v0/ns/{namespace}/wt/{workflow type}/wi/{workflow id}/ri/{run id}/d/sha256/{digest}`
 * (or `…/at/{activity type}/ai/{activity id}/…`) and has no prefix option, so
 * writes go through a client that puts the prefix in front of each key, and each
 * claim is rewritten to name the object's full key. A claim in history is then
 * self-describing, exactly as the official driver's own: any reader with access
 * to the bucket retrieves it — this project under another prefix, or the S3
 * driver of another Temporal SDK — and reads go through the official driver
 * unchanged (with its SHA-256 integrity check).
 */
export class S3PayloadDriver implements StorageDriver {
  /** The official driver's name and type, so the claims are the official driver's own. */
  readonly name = s3PayloadDriverName;
  readonly type = s3PayloadDriverName;
  private readonly writer: S3StorageDriver;
  private readonly reader: S3StorageDriver;

  constructor(
    client: S3Client,
    readonly bucket: string,
    readonly prefix: string,
  ) {
    const official = new AwsSdkS3StorageDriverClient(client);
    this.writer = new S3StorageDriver({ client: withKeyPrefix(official, prefix), bucket });
    this.reader = new S3StorageDriver({ client: official, bucket });
  }

  async store(context: StorageDriverStoreContext, payloads: Payload[]): Promise<StorageDriverClaim[]> {
    const claims = await this.writer.store(context, payloads);
    return claims.map((claim) => new StorageDriverClaim({ ...claim.claimData, key: `${this.prefix}${claim.claimData.key}` }));
  }

  retrieve(context: StorageDriverRetrieveContext, claims: StorageDriverClaim[]): Promise<Payload[]> {
    return this.reader.retrieve(context, claims);
  }
}

function withKeyPrefix(client: S3StorageDriverClient, prefix: string): S3StorageDriverClient {
  return {
    putObject: (bucket, key, data, options) => client.putObject(bucket, `${prefix}${key}`, data, options),
    objectExists: (bucket, key, options) => client.objectExists(bucket, `${prefix}${key}`, options),
    getObject: (bucket, key, options) => client.getObject(bucket, `${prefix}${key}`, options),
    describe: () => ({ ...client.describe?.(), keyPrefix: prefix }),
  };
}
