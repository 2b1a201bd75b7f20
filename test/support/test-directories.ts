import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Where test runs keep their files: the repository's .test-tmp/ (ignored by git). */
export const testTmpDirectory = path.join(__dirname, '..', '..', '.test-tmp');

/**
 * Points every store a test run touches at .test-tmp/, out of the user's data directory, and lets
 * workers serve workspaces in the temporary directory, where the tests make theirs.
 */
export async function useTestDirectories(): Promise<void> {
  await mkdir(testTmpDirectory, { recursive: true });
  process.env.AGENT_TRANSCRIPT_DIR = path.join(testTmpDirectory, 'transcripts');
  process.env.AGENT_PAYLOAD_DIR = path.join(testTmpDirectory, 'payloads');
  process.env.AGENT_WORKSPACE_ROOT = os.tmpdir();
}
