import os from 'node:os';

export interface CpuSample {
  /** The fraction of all cores' time spent busy between an earlier sample and this one, every process counted. */
  busyFractionSince(earlier: CpuSample): number;
  busy: number;
  total: number;
}

export function machineCpu(): CpuSample {
  let busy = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const { user, nice, sys, irq, idle } = cpu.times;
    busy += user + nice + sys + irq;
    total += user + nice + sys + irq + idle;
  }
  return {
    busy,
    total,
    busyFractionSince: (earlier) => (busy - earlier.busy) / Math.max(1, total - earlier.total),
  };
}
