import net from 'node:net';

/** A loopback TCP port nobody is listening on right now, for a server about to be started on it. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port;
}

/**
 * Several free loopback ports, all different: each probe stays open until all are taken, since the system may
 * hand a port just released to the next probe (a server given the same port twice fails to start).
 */
export async function freePorts(count: number): Promise<number[]> {
  const probes = await Promise.all(Array.from({ length: count }, () => openProbe()));
  await Promise.all(probes.map((probe) => new Promise<void>((resolve) => probe.close(() => resolve()))));
  return probes.map((probe) => probe.port);
}

function openProbe(): Promise<net.Server & { port: number }> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => resolve(Object.assign(probe, { port: (probe.address() as net.AddressInfo).port })));
  });
}

/** Whether something accepts TCP connections on a loopback port (within half a second). */
export function portAccepts(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 500 });
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}
