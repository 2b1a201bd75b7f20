// `npm run minio:install`: makes sure a MinIO server binary is available for the tests (found, or built and cached) and prints its path.
import { ensureMinio } from './find-minio';

ensureMinio((line) => console.error(line)).then(
  (binary) => console.log(binary),
  (error: Error) => {
    console.error(`Could not provide MinIO: ${error.message}`);
    process.exit(1);
  },
);
