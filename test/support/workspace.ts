import { access, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** A fresh temporary workspace holding the given files. */
export async function makeWorkspace(files: Record<string, string | Uint8Array> = {}): Promise<string> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'agent-workspace-'));
  for (const [name, content] of Object.entries(files)) {
    await writeFile(path.join(directory, name), content);
  }
  return directory;
}

/** Whether a file (or directory) exists now. */
export function fileExists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
