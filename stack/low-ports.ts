import net from 'node:net';

/**
 * Free loopback ports below 32768. The server records each service's membership port in PostgreSQL's
 * cluster_membership table as a SMALLINT, so a port the system hands out for port 0 (Linux: 32768–60999) makes
 * it exit at start ("value … is out of range for type smallint"). Each probe stays open until all are taken.
 */
export async function lowFreePorts(count: number): Promise<number[]> {
  const probes: net.Server[] = [];
  const ports: number[] = [];
  try {
    for (let attempt = 0; ports.length < count; attempt++) {
      if (attempt > 1000) throw new Error(`no ${count} free loopback ports below 32768`);
      const port = 20_000 + Math.floor(Math.random() * 12_000);
      if (ports.includes(port)) continue;
      const probe = await listen(port);
      if (probe) {
        probes.push(probe);
        ports.push(port);
      }
    }
    return ports;
  } finally {
    await Promise.all(probes.map((probe) => new Promise<void>((resolve) => probe.close(() => resolve()))));
  }
}

function listen(port: number): Promise<net.Server | undefined> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(undefined));
    probe.listen(port, '127.0.0.1', () => resolve(probe));
  });
}
