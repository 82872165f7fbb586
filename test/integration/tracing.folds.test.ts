/**
 * A folded request's trace (README, "Tracing"): a request that folds into a queued wakeup keeps a
 * trace of its own, of its enqueue span alone, linked to the enqueue span of the wakeup that carries
 * it; its row keeps its own trace context. The WakeupService on a real SQLite store, with a tracer
 * that records into memory.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { WakeupService, type EnqueueRequest } from '../../src/services/wakeups.js';
import { WakeupTracing, formatTraceparent } from '../../src/telemetry/tracing.js';
import { sqliteFaults } from '../helpers/storage.js';
import { disposedAfterEach, sqliteStoreFactory } from '../store/factory.js';
import { seedAgent } from '../store/rows.js';

const freshStore = disposedAfterEach(sqliteStoreFactory);
const NOW = 1_000_000;

describe('the trace of a folded request', () => {
  it('is its own enqueue span, linked to the enqueue span of the wakeup it folded into, and its row keeps its own trace context', async () => {
    const { store } = await freshStore({ now: () => NOW });
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const wakeups = new WakeupService(loadConfig({ OFFICE_COALESCE_WINDOW_MS: '5000' }), pino({ level: 'silent' }),
      { wakeupQueued: () => undefined, wakeupWithdrawn: () => undefined }, { recordOutcome: async () => undefined }, new WakeupTracing('r1', () => provider));
    const { agent } = await store.transaction((tx) => seedAgent(tx, NOW));
    const self = (reason: string): EnqueueRequest => ({ agent_id: agent.id, source: 'self', reason, payload: { reason } });
    const { first, second } = await store.transaction(async (tx) => ({
      first: await wakeups.enqueue(tx, self('first'), NOW), second: await wakeups.enqueue(tx, self('second'), NOW),
    }));
    expect(second).toMatchObject({ kind: 'coalesced', into: { id: first.wakeup.id } });

    const spans = exporter.getFinishedSpans();
    const target = spans.find((span) => span.attributes['office.wakeup.id'] === first.wakeup.id)!;
    const folded = spans.find((span) => span.attributes['office.wakeup.id'] === second.wakeup.id)!;
    expect(folded.attributes).toMatchObject({ 'office.wakeup.outcome': 'coalesced', 'office.wakeup.coalesced_into': first.wakeup.id });
    expect(folded.spanContext().traceId).not.toBe(target.spanContext().traceId);
    expect(folded.links.map((link) => link.context.spanId)).toEqual([target.spanContext().spanId]);
    const contexts = sqliteFaults(store).all<{ id: string; trace_context: string }>('SELECT id, trace_context FROM agent_wakeup_requests ORDER BY requested_at, id');
    expect(Object.fromEntries(contexts.map((row) => [row.id, row.trace_context]))).toEqual({
      [first.wakeup.id]: formatTraceparent(target.spanContext()), [second.wakeup.id]: formatTraceparent(folded.spanContext()),
    });
    // No response carries it: the stored requests as the service answers them have no trace context.
    expect(first.wakeup).not.toHaveProperty('trace_context');
    expect(second.wakeup).not.toHaveProperty('trace_context');
  });
});
