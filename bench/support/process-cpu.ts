import { readdir, readFile } from 'node:fs/promises';

// Linux's /proc: the CPU time of another process (the dev server) is only readable there.
// Elsewhere these report nothing and the benchmark prints a dash.
const ticksPerSecond = 100; // USER_HZ, 100 on every mainstream Linux (`getconf CLK_TCK`)

/** User plus system CPU time of a process so far, in ms; undefined when it cannot be read. */
export async function processCpuMs(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (!stat) return undefined;
  // Fields after the command name (which may hold spaces, inside parentheses): utime and stime are the 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1000;
}

/** The process of the dev server listening on `port` (its command line names the port), if /proc shows it. */
export async function devServerPid(port: string): Promise<number | undefined> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  for (const entry of entries.filter((name) => /^\d+$/.test(name))) {
    const commandLine = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    const args = commandLine.split('\0');
    if (args.includes('start-dev') && args[args.indexOf('--port') + 1] === port) return Number(entry);
  }
  return undefined;
}
