/** The names written into every reference payload in history: a reader needs a driver of that name. */

/** Temporal's official S3 driver's default name. */
export const s3PayloadDriverName = 'aws.s3driver';

/** This project's local-directory driver (the embedded single-machine default). */
export const localDirectoryDriverName = 'local-directory';
