import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { cachedCliPath, findTemporalCli, temporalCliVersion } from '../../cli/dev-server/find-temporal-cli';

async function fakeBinary(directory: string): Promise<string> {
  await mkdir(directory, { recursive: true });
  const file = path.join(directory, 'temporal');
  await writeFile(file, '#!/bin/sh\n');
  await chmod(file, 0o755);
  return file;
}

describe('findTemporalCli', () => {
  let scratch: string;
  beforeEach(async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'find-cli-'));
  });

  it('prefers TEMPORAL_CLI_PATH', async () => {
    const binary = await fakeBinary(path.join(scratch, 'explicit'));
    const onPath = await fakeBinary(path.join(scratch, 'bin'));
    expect(await findTemporalCli({ TEMPORAL_CLI_PATH: binary, PATH: path.dirname(onPath) })).toBe(binary);
  });

  it('fails clearly when TEMPORAL_CLI_PATH is not an executable', async () => {
    await expect(findTemporalCli({ TEMPORAL_CLI_PATH: path.join(scratch, 'missing') })).rejects.toThrow(
      'is not an executable file',
    );
  });

  it('finds temporal on PATH', async () => {
    const binary = await fakeBinary(path.join(scratch, 'bin'));
    expect(
      await findTemporalCli({ PATH: ['/nonexistent', path.dirname(binary)].join(path.delimiter), XDG_CACHE_HOME: scratch }),
    ).toBe(binary);
  });

  it('falls back to the project cache, keyed by the CLI version', async () => {
    const env = { PATH: '/nonexistent', XDG_CACHE_HOME: scratch };
    expect(cachedCliPath(env)).toBe(path.join(scratch, 'durable-agent', 'temporal-cli', temporalCliVersion, 'temporal'));
    expect(await findTemporalCli(env)).toBeUndefined();
    await fakeBinary(path.dirname(cachedCliPath(env)));
    expect(await findTemporalCli(env)).toBe(cachedCliPath(env));
  });
});
