/**
 * A subscriber that fails is retried with backoff while the process runs (on the injected clock),
 * and after its last retry the event is parked: an `event.parked` inbox item, an outbox row that
 * is no longer replayed at boot, and nothing else held up. Real SQLite, real HTTP server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { loadConfig } from '../../src/config.js';
import { SUBSCRIBER_RETRY_DELAYS_MS } from '../../src/events/bus.js';
import type { SqliteStore } from '../../src/persistence/sqlite/store.js';
import { createScheduler, type Scheduler } from '../../src/scheduler.js';
import { FAST_ENV, request } from '../helpers/harness.js';

let scheduler: Scheduler | undefined;
let dir: string | undefined;
afterEach(async () => {
  await scheduler?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  scheduler = undefined;
  dir = undefined;
});

async function boot(dbPath: string, clock: SimulatedClock): Promise<{ scheduler: Scheduler; url: string }> {
  const started = await createScheduler({ config: loadConfig({ ...FAST_ENV, OFFICE_DB: dbPath }), clock });
  const { url } = await started.start();
  return { scheduler: started, url: url! };
}

describe('a subscriber that keeps failing', () => {
  it('is retried at each backoff step of the injected clock, then its event is parked with an inbox item and is not replayed at the next boot', async () => {
    dir = mkdtempSync(join(tmpdir(), 'office-parking-'));
    const dbPath = join(dir, 'office.db');
    const clock = new SimulatedClock();
    clock.set(Date.UTC(2026, 0, 5, 9, 0, 0));
    let url: string;
    ({ scheduler, url } = await boot(dbPath, clock));
    let tries = 0;
    scheduler.events.on('task.created', (event) => {
      tries++;
      throw new Error(`cannot index task ${event.payload.task_id}`);
    });

    const ws = (await request(url, 'POST', '/api/office/workspaces', { name: 'Acme' })).body;
    const poisoned = (await request(url, 'POST', '/api/office/tasks', { workspace_id: ws.id, title: 'Poison' })).body.id;
    const outbox = () => (scheduler!.store as SqliteStore).db.prepare('SELECT id, type, parked_at, parked_error FROM event_outbox WHERE type = ?').all('task.created') as any[];
    await waitUntil(() => tries === 1, 'the first try');
    expect(outbox()).toHaveLength(1);

    for (const [step, delay] of SUBSCRIBER_RETRY_DELAYS_MS.entries()) {
      clock.increment(delay);
      await waitUntil(() => tries === step + 2, `retry ${step + 1}`);
    }
    await scheduler.events.idle();
    expect(tries).toBe(SUBSCRIBER_RETRY_DELAYS_MS.length + 1);
    const [row] = outbox();
    expect(row.parked_at).toBe(clock.now());
    expect(row.parked_error).toBe(`cannot index task ${poisoned}`);

    const inbox = (await request(url, 'GET', `/api/office/inbox?workspace_id=${ws.id}`)).body.filter((i: any) => i.kind === 'event.parked');
    expect(inbox).toHaveLength(1);
    expect(inbox[0]).toMatchObject({ task_id: poisoned, ref_id: String(row.id), status: 'open' });
    expect(inbox[0].title).toBe(`Event task.created #${row.id} could not be delivered`);
    expect(inbox[0].body).toContain(`cannot index task ${poisoned}`);

    // Later events are delivered as usual, and a restart does not replay the parked one.
    await scheduler.stop();
    ({ scheduler, url } = await boot(dbPath, clock));
    let replayed = 0;
    scheduler.events.on('task.created', () => { replayed++; });
    await scheduler.events.idle();
    expect(replayed).toBe(0);
    await request(url, 'POST', '/api/office/tasks', { workspace_id: ws.id, title: 'Healthy' });
    await waitUntil(() => replayed === 1, 'the next event');
    await scheduler.events.idle();
    expect(outbox()).toHaveLength(1);
  });
});

async function waitUntil(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}
