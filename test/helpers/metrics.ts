/**
 * What the metrics tests of both backends share: a scrape read into samples, the counts it must
 * agree with, and the plan check that a scrape's statements read only the counter rows.
 */
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';
import { RUN_STATUSES, WAKEUP_STATUSES } from '../../src/domain/types.js';
import type { Inspector } from '../../src/persistence/inspector.js';

/** Every sample of a Prometheus text scrape, by its name and labels as written (`office_runs{status="failed"}`). */
export async function scrape(baseUrl: string): Promise<Map<string, number>> {
  const response = await fetch(`${baseUrl}/metrics`);
  expect(response.status).toBe(200);
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

/** The scrape's wakeups and runs by status, every status listed (0 when no row is in it). */
export function gaugesOf(samples: Map<string, number>) {
  const read = (name: string, statuses: readonly string[]) => Object.fromEntries(statuses.map((status) => [status, samples.get(`${name}{status="${status}"}`)]));
  return { wakeups: read('office_wakeups', WAKEUP_STATUSES), runs: read('office_runs', RUN_STATUSES) };
}

/** The same counts, from the rows themselves. */
export async function rowCounts(inspect: Inspector) {
  const count = async (table: string, statuses: readonly string[]) =>
    Object.fromEntries(await Promise.all(statuses.map(async (status) => [status, await inspect.count(table, { status })] as const)));
  return { wakeups: await count('agent_wakeup_requests', WAKEUP_STATUSES), runs: await count('runs', RUN_STATUSES) };
}

/**
 * A scrape's counts, and the rows' counts read before and after it, once the two readings of the
 * rows agree: while runs are open the rows move between any two reads, and a scrape can only be
 * held to rows that stood still around it.
 */
export async function scrapeBetweenStillRows(baseUrl: string, inspect: Inspector) {
  for (let attempt = 1; ; attempt++) {
    const before = await rowCounts(inspect);
    const gauges = gaugesOf(await scrape(baseUrl));
    const after = await rowCounts(inspect);
    if (isDeepStrictEqual(before, after)) return { gauges, rows: after };
    if (attempt === 20) throw new Error('the rows kept changing around every scrape');
  }
}

/**
 * What a scrape may read: the counter rows, one per agent, whatever the history holds, and the open
 * wakeups and runs through the partial indexes that hold those rows only. Any other table, or one of
 * these read otherwise, is history read at every scrape.
 */
export const SCRAPE_READS = new Map<string, string | null>([
  ['agent_status_counts', null],
  ['agent_wakeup_requests', 'wakeups_open'],
  ['runs', 'runs_active'],
]);

/** Why a scrape must not read `table` through `index` (null: not through an index); null when it may. */
export function scrapeReadFault(table: string, index: string | null): string | null {
  if (!SCRAPE_READS.has(table)) return `reads ${table}, which is neither the counter rows nor the open rows`;
  const allowed = SCRAPE_READS.get(table);
  return allowed === null || allowed === index ? null : `reads ${table} ${index ? `through ${index}` : 'without an index'}, not through ${allowed}`;
}
