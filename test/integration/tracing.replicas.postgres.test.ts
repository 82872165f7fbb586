/**
 * One trace per wakeup across replicas (README, "Tracing"): a wakeup enqueued through one replica
 * and claimed and run by the one holding its agent is one trace, enqueue -> claim -> run -> finish,
 * continued from the traceparent its row carries. Two replicas in this process on one PostgreSQL
 * database, each span naming the replica that recorded it; a real fixture agent's session reports
 * the TRACEPARENT it got.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureAgent, waitFor } from '../helpers/harness.js';
import { startOtlpReceiver, traceOf, type OtlpReceiver } from '../helpers/otlpReceiver.js';
import { createAgent, holderAndOther, replicasPerTest, seedWorkspace } from '../helpers/replicas.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);

const cluster = replicasPerTest();
let receiver: OtlpReceiver | null = null;
afterEach(async () => {
  await receiver?.close();
  receiver = null;
});

describe('tracing across replicas', () => {
  it('GIVEN two traced replicas WHEN a wakeup is enqueued through one and run by the other THEN it is one trace of four spans, enqueue on the first, claim, run and finish on the second', async () => {
    receiver = await startOtlpReceiver();
    const env = { OFFICE_COALESCE_WINDOW_MS: '0', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const replicas = [await cluster.start('r1', { at: T0, env }), await cluster.start('r2', { at: T0, env })] as const;
    const ws = await seedWorkspace(replicas[0]);
    const agent = await createAgent(replicas[0], ws, { executor: fixtureAgent('trace-context.mjs') });
    const { owner, elsewhere } = await holderAndOther(...replicas, agent);

    const woke = await elsewhere.api('POST', `/api/office/agents/${agent}/wake`, { reason: 'across' });
    expect(woke.status).toBe(202);
    const wakeupId: string = woke.body.wakeup.id;
    const run = await waitFor(async () => (await elsewhere.api('GET', `/api/office/runs?wakeup_id=${wakeupId}`)).body.find((r: any) => r.status === 'succeeded'), 'the run');
    // The last replica to stop shuts the process's SDK down, which exports what is still batched.
    await cluster.stop(elsewhere);
    await cluster.stop(owner);

    const enqueue = receiver.spans.find((span) => span.name === 'wakeup.enqueue' && span.attributes['office.wakeup.id'] === wakeupId)!;
    expect(enqueue.attributes['office.replica.id']).toBe(elsewhere.id);
    const spans = traceOf(receiver.spans, enqueue.traceId);
    const byName = Object.fromEntries(spans.map((span) => [span.name, span]));
    expect(spans.map((span) => span.name).sort()).toEqual(['wakeup.claim', 'wakeup.enqueue', 'wakeup.finish', 'wakeup.run']);
    expect(byName['wakeup.claim']!.parentSpanId).toBe(enqueue.spanId);
    expect(byName['wakeup.run']!.parentSpanId).toBe(byName['wakeup.claim']!.spanId);
    expect(byName['wakeup.finish']!.parentSpanId).toBe(byName['wakeup.run']!.spanId);
    for (const name of ['wakeup.claim', 'wakeup.run', 'wakeup.finish']) expect(byName[name]!.attributes['office.replica.id']).toBe(owner.id);
    expect(run.result_json.traceparent).toBe(`00-${enqueue.traceId}-${byName['wakeup.run']!.spanId}-01`);
  });
});
