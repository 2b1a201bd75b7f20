import { useTestDirectories } from './test-directories';

/** `npm run test:unit`'s global setup: the unit tests need no server, only the tests' own directories. */
export default async function unitGlobalSetup(): Promise<void> {
  await useTestDirectories();
}
