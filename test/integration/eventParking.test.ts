/**
 * A subscriber that fails is retried with backoff while the process runs (on the injected clock),
 * and after its last retry the event is parked: an `event.parked` inbox item, an outbox row that
 * is no longer replayed at boot, and nothing else held up. Real SQLite, real HTTP server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { SUBSCRIBER_RETRY_DELAYS_MS } from '../../src/events/bus.js';
import { startHarness, waitFor, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

describe('a subscriber that keeps failing', () => {
  it('is retried at each backoff step of the injected clock, then its event is parked with an inbox item and is not replayed at the next boot', async () => {
    const clock = new SimulatedClock();
    clock.set(Date.UTC(2026, 0, 5, 9, 0, 0));
    h = await startHarness({}, undefined, clock);
    let tries = 0;
    h.scheduler.events.on('task.created', (event) => {
      tries++;
      throw new Error(`cannot index task ${event.payload.task_id}`);
    });

    const ws = (await h.api('POST', '/api/office/workspaces', { name: 'Acme' })).body;
    const poisoned = (await h.api('POST', '/api/office/tasks', { workspace_id: ws.id, title: 'Poison' })).body.id;
    const outbox = () => h!.inspect.rows<any>('event_outbox', { type: 'task.created' }, { columns: ['id', 'type', 'parked_at', 'parked_error'] });
    await waitFor(() => tries === 1, 'the first try');
    expect(await outbox()).toHaveLength(1);

    for (const [step, delay] of SUBSCRIBER_RETRY_DELAYS_MS.entries()) {
      clock.increment(delay);
      await waitFor(() => tries === step + 2, `retry ${step + 1}`);
    }
    await h.scheduler.events.idle();
    expect(tries).toBe(SUBSCRIBER_RETRY_DELAYS_MS.length + 1);
    const [row] = await outbox();
    expect(row.parked_at).toBe(clock.now());
    expect(row.parked_error).toBe(`cannot index task ${poisoned}`);

    const inbox = (await h.api('GET', `/api/office/inbox?workspace_id=${ws.id}`)).body.filter((i: any) => i.kind === 'event.parked');
    expect(inbox).toHaveLength(1);
    expect(inbox[0]).toMatchObject({ task_id: poisoned, ref_id: String(row.id), status: 'open' });
    expect(inbox[0].title).toBe(`Event task.created #${row.id} could not be delivered`);
    expect(inbox[0].body).toContain(`cannot index task ${poisoned}`);

    // A restart does not replay the parked event, and later events are delivered as usual.
    await h.restart();
    let delivered = 0;
    h.scheduler.events.on('task.created', () => { delivered++; });
    await h.scheduler.events.idle();
    expect(delivered).toBe(0);
    await h.api('POST', '/api/office/tasks', { workspace_id: ws.id, title: 'Healthy' });
    await waitFor(() => delivered === 1, 'the next event');
    await h.scheduler.events.idle();
    expect(await outbox()).toHaveLength(1);
  });
});
