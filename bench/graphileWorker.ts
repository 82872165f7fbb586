/**
 * The yardstick of P6a: graphile-worker 0.16.6 (the last release that runs on Node 20) on the same
 * PostgreSQL server, in a database of its own. Jobs of a no-op task are added with `addJob` at
 * saturation, all at once, as P2 assigns its tasks; the rate is from the first add to the Nth job start.
 */
import { Logger, makeWorkerUtils, run, type Runner, type WorkerUtils } from 'graphile-worker';
import { performance } from 'node:perf_hooks';

/** Jobs run at once: as many as P2's agents have slots would be 1000; past a few dozen, 2 cores only add contention. */
export const GRAPHILE_CONCURRENCY = 32;

const silent = new Logger(() => () => undefined);

/** Job starts per second of graphile-worker on `connectionString`, after `warmup` jobs that are not counted. */
export async function graphileAddToStartRate(connectionString: string, n: number, warmup = 500): Promise<number> {
  let started = 0;
  let target = warmup;
  let reached!: () => void;
  let whenReached = new Promise<void>((resolve) => (reached = resolve));
  const noop = async () => {
    if (++started === target) reached();
  };
  let runner: Runner | null = null;
  let utils: WorkerUtils | null = null;
  try {
    utils = await makeWorkerUtils({ connectionString, logger: silent, maxPoolSize: 10 });
    await utils.migrate();
    runner = await run({
      connectionString, concurrency: GRAPHILE_CONCURRENCY, maxPoolSize: GRAPHILE_CONCURRENCY + 2, noHandleSignals: true, pollInterval: 2000,
      logger: silent, taskList: { noop },
    });
    const addAll = (count: number, offset: number) => {
      const adds: Promise<unknown>[] = [];
      for (let i = 0; i < count; i++) adds.push(utils!.addJob('noop', { i: offset + i }));
      return Promise.all(adds);
    };
    await addAll(warmup, 0);
    await whenReached;

    target = warmup + n;
    whenReached = new Promise<void>((resolve) => (reached = resolve));
    const start = performance.now();
    await addAll(n, warmup);
    await whenReached;
    return n / ((performance.now() - start) / 1000);
  } finally {
    await runner?.stop();
    await utils?.release();
  }
}
