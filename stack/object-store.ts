import { BucketAlreadyOwnedByYou, CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { startMinio, type MinioServer } from '../test/support/minio/minio-server';

/**
 * MinIO with the bucket, as the compose file's minio and minio-create-bucket services make them (the latter runs
 * `mc mb --ignore-existing`; here the S3 API's CreateBucket does the same, and a bucket we own already is fine).
 * The server itself is the one the tests run (test/support/minio), with the compose file's root credentials.
 */
export async function startObjectStore(options: {
  binary: string;
  dataDirectory: string;
  user: string;
  password: string;
  bucket: string;
  port?: number;
}): Promise<MinioServer> {
  const server = await startMinio({
    binary: options.binary,
    dataDirectory: options.dataDirectory,
    accessKeyId: options.user,
    secretAccessKey: options.password,
    port: options.port,
  });
  const s3 = new S3Client({
    endpoint: server.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: options.user, secretAccessKey: options.password },
  });
  try {
    await s3.send(new CreateBucketCommand({ Bucket: options.bucket }));
  } catch (error) {
    if (!(error instanceof BucketAlreadyOwnedByYou)) {
      await server.stop();
      throw error;
    }
  } finally {
    s3.destroy();
  }
  return server;
}
