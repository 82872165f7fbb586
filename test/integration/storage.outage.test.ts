/**
 * "Storage failures are visible" (API.md, Running in production), on any machine: the connection is
 * made read-only with `PRAGMA query_only`, so every write fails with the real SQLITE_READONLY a
 * read-only file gives (chmod does not stop root). The full-disk variant is storage.fullDisk.test.ts.
 * Real SQLite, real HTTP, real child-process agents.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { heldRun, metricValue, sqliteFaults } from '../helpers/storage.js';

let h: Harness | undefined;
let dir: string | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const { getWakeup, getAgent, listRuns } = apiClient(() => h);

const setReadOnly = (harness: Harness, on: boolean) => sqliteFaults(harness.scheduler.store).setReadOnly(on);
const readyStatus = async (harness: Harness) => (await harness.api('GET', '/readyz')).status;

/** A held run whose session ends after the database became read-only, so its finish cannot be recorded. */
async function runEndingDuringOutage(harness: Harness) {
  dir = mkdtempSync(join(tmpdir(), 'office-outage-'));
  const held = await heldRun(harness, dir);
  await harness.waitFor(() => held.sessions() === 1, 'the session to start');
  setReadOnly(harness, true);
  held.release();
  await harness.waitFor(async () => (await metricValue(harness.url, 'office_runs_unrecorded')) === 1, 'the finish to hit the read-only database');
  return held;
}

describe('storage failures', () => {
  it('writes answer 503 storage_unavailable and /readyz 503 while the database cannot be written, and both recover by themselves', async () => {
    h = await startHarness();
    expect(await readyStatus(h)).toBe(200);

    setReadOnly(h, true);
    const refused = await h.api('POST', '/api/office/workspaces', { name: 'During the outage' });
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('storage_unavailable');
    expect(refused.body.error.message).toContain('SQLITE_READONLY');
    const ready = await h.api('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.error.code).toBe('storage_unavailable');
    expect(h.scheduler.store.storageHealth().writable).toBe(false);
    // Reads are still served: a read-only file refuses the write lock, not a read transaction.
    expect((await h.api('GET', '/api/office/workspaces')).status).toBe(200);

    // No client write comes: the store's own probe notices that writing works again.
    setReadOnly(h, false);
    await h.waitFor(async () => (await readyStatus(h!)) === 200, '/readyz to recover without a client write');
    expect(await metricValue(h.url, 'office_storage_writable')).toBe(1);
    expect((await h.api('POST', '/api/office/workspaces', { name: 'After the outage' })).status).toBe(201);
  });

  it('a run that ends while the database cannot be written is recorded once writing works, without a restart, and runs once', async () => {
    h = await startHarness();
    const held = await runEndingDuringOutage(h);
    // The finish failed: the outcome waits in memory, the row still says running.
    expect((await listRuns({ wakeup_id: held.wakeupId })).map((r: any) => r.status)).toEqual(['running']);
    expect(h.scheduler.store.storageHealth().writable).toBe(false);

    setReadOnly(h, false);
    const wakeup = await h.waitFor(async () => {
      const w = await getWakeup(held.wakeupId);
      return w.status === 'finished' ? w : null;
    }, 'the outcome to be recorded once writing works');
    expect(wakeup.status).toBe('finished');
    const runs = await listRuns({ wakeup_id: held.wakeupId });
    expect(runs.map((r: any) => r.status)).toEqual(['succeeded']);
    expect((await getAgent(held.agentId)).status).toBe('idle');
    expect(held.sessions()).toBe(1);
    expect(await metricValue(h.url, 'office_runs_unrecorded')).toBe(0);
    expect(await readyStatus(h)).toBe(200);
  });

  it('a shutdown during the outage gives up the unrecorded outcome without hanging, and the next start marks the run interrupted', async () => {
    h = await startHarness();
    const held = await runEndingDuringOutage(h);

    // Still read-only while stopping: the wait for storage ends, the store closes, and the new process can open the file.
    await h.restart();
    const [first] = await h.waitFor(async () => {
      const runs = await listRuns({ wakeup_id: held.wakeupId });
      return runs.length > 0 && runs.every((r: any) => r.status !== 'running') ? runs : null;
    }, 'the next start to close the run left running');
    expect(first.status).toBe('interrupted');
    expect(first.error).toContain('interrupted');
  });

  it('the WAL is truncated once writes stop, even while reads go on, and /metrics reports its size', async () => {
    h = await startHarness();
    for (let i = 0; i < 20; i++) expect((await h.api('POST', '/api/office/workspaces', { name: `Burst ${i}` })).status).toBe(201);
    expect(await metricValue(h.url, 'office_sqlite_wal_bytes')).toBeGreaterThan(0);
    // Scraping every 25 ms is a steady stream of reads: it must not hold the checkpoint off.
    await h.waitFor(async () => (await metricValue(h!.url, 'office_sqlite_wal_bytes')) === 0, 'the WAL to be truncated after the burst');
  });
});
