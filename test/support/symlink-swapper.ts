import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/**
 * Another process that keeps swapping the symlink `link` between two targets as fast as it can (a new link made
 * beside it, then renamed over it, so the name always exists), as an attacker sharing the machine would. Bounded:
 * it stops by itself after `maxSeconds`. stop() ends it and resolves to the number of swaps it made.
 */
export interface SymlinkSwapper {
  stop(): Promise<number>;
}

const swapperSource = `
const fs = require('node:fs');
const [link, first, second, maxSeconds] = process.argv.slice(1);
const deadline = Date.now() + Number(maxSeconds) * 1000;
let swaps = 0;
process.on('SIGTERM', () => { process.stdout.write(String(swaps)); process.exit(0); });
process.stdout.write('ready\\n');
const step = () => {
  for (let index = 0; index < 200; index++) {
    const temporary = link + '.swap';
    fs.rmSync(temporary, { force: true });
    fs.symlinkSync(swaps % 2 === 0 ? second : first, temporary);
    fs.renameSync(temporary, link);
    swaps++;
  }
  if (Date.now() < deadline) setImmediate(step); else { process.stdout.write(String(swaps)); process.exit(0); }
};
step();
`;

export async function startSymlinkSwapper(link: string, first: string, second: string, maxSeconds = 60): Promise<SymlinkSwapper> {
  const child: ChildProcess = spawn(process.execPath, ['-e', swapperSource, link, first, second, String(maxSeconds)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  while (!output.startsWith('ready\n')) await once(child.stdout!, 'data');
  return {
    async stop() {
      const exited = child.exitCode === null ? once(child, 'exit') : Promise.resolve();
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      return Number(output.slice('ready\n'.length));
    },
  };
}
