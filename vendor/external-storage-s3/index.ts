/**
 * @experimental The External Storage S3 driver is an experimental feature and may be subject to change.
 */
export { S3StorageDriver } from './driver';
export type { S3StorageDriverOptions, BucketSelector } from './driver';
export type { S3StorageDriverClient, S3RequestOptions } from './client';
// From @temporalio/external-storage-s3-aws-sdk 1.22.0 (src/index.ts), merged into this folder:
export { AwsSdkS3StorageDriverClient } from './aws-sdk-client';
