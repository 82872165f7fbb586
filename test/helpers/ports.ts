/** Ports for the servers a test starts as child processes, which cannot be told to take port 0. */
import { createServer } from 'node:net';

/** A port nothing listens on now: the kernel picks it. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A first port such that it and the next `count - 1` are free now, for a program that takes consecutive ports. */
export async function consecutiveFreePorts(count: number): Promise<number> {
  for (;;) {
    // Below Linux's ephemeral range (32768 and up), where the kernel hands out the other tests' port 0.
    const first = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await Promise.all(Array.from({ length: count }, (_, i) => isFree(first + i)));
    if (free.every(Boolean)) return first;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
