/**
 * Tracing (README, "Tracing"): with OTEL_EXPORTER_OTLP_ENDPOINT set, a local OTLP/HTTP receiver gets
 * one trace per wakeup, its spans enqueue -> claim -> run -> finish each the child of the one
 * before, from a real run of a fixture agent through the real server on SQLite; the session's
 * TRACEPARENT names the run span, as does an http agent's `traceparent` header. With no endpoint,
 * nothing is started or exported, and the wakeup row's trace_context stays null.
 */
import { ProxyTracerProvider, trace } from '@opentelemetry/api';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createInspector } from '../../src/persistence/createStore.js';
import { StatementProfile } from '../../src/persistence/shared/statementProfile.js';
import { createScheduler } from '../../src/scheduler.js';
import { FAST_ENV, fixtureAgent, request, seedAgent, startHarness, waitFor, type Harness } from '../helpers/harness.js';
import { startOtlpReceiver, traceOf, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlpReceiver.js';

let h: Harness | null = null;
let receiver: OtlpReceiver | null = null;
afterEach(async () => {
  await h?.stop();
  await receiver?.close();
  h = null;
  receiver = null;
});

/** Wakes the agent and waits for the run of that wakeup to succeed; the wakeup's id, and what the session reported. */
async function wakeAndRun(harness: Harness, agentId: string, reason: string, idempotencyKey?: string) {
  const woken = await harness.api('POST', `/api/office/agents/${agentId}/wake`, { reason, ...(idempotencyKey ? { idempotency_key: idempotencyKey } : {}) });
  expect(woken.status).toBe(202);
  const wakeupId: string = woken.body.wakeup.id;
  const run = await harness.waitFor(async () => (await harness.inspect.rows<{ status: string; result_json: string; id: string }>('runs', { wakeup_id: wakeupId }))
    .find((r) => r.status === 'succeeded'), `the run of ${wakeupId}`);
  const reported = JSON.parse(run.result_json) as { traceparent: string | null; tracestate: string | null };
  const [row] = await harness.inspect.rows<{ trace_context: string | null }>('agent_wakeup_requests', { id: wakeupId }, { columns: ['trace_context'] });
  return { wakeupId, runId: run.id, reported, traceContext: row!.trace_context };
}

/**
 * The statements of one wakeup, from the wake to its run's end, after one to warm up (the actor's
 * first snapshot), on a scheduler of its own with a statement profile; read back through an
 * inspector of its own connection, which the profile does not count.
 */
async function statementsOfOneWakeup(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'office-tracing-'));
  const dbPath = join(dir, 'office.db');
  const profile = new StatementProfile();
  const scheduler = await createScheduler({ config: loadConfig({ ...FAST_ENV, OFFICE_DB: dbPath, ...env }), statementProfile: profile,
    functions: new Map([['noop', async () => ({})]]) });
  const { url } = await scheduler.start();
  const inspect = createInspector({ dbPath });
  try {
    const api = { api: (method: string, path: string, body?: unknown) => request(url!, method, path, body) } as Harness;
    const { agentId } = await seedAgent(api, { executor: { kind: 'function', name: 'noop' } });
    const wake = async (reason: string) => {
      const { body } = await request(url!, 'POST', `/api/office/agents/${agentId}/wake`, { reason });
      await waitFor(async () => (await inspect.rows<{ status: string }>('agent_wakeup_requests', { id: body.wakeup.id }))[0]?.status === 'finished', reason);
      await scheduler.events.idle();
    };
    await wake('warm up');
    profile.reset();
    await wake('measured');
    return { texts: profile.statements().map((stat) => stat.text), count: profile.statementCount() };
  } finally {
    await inspect.close();
    await scheduler.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const named = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === name);

describe('tracing', () => {
  it('GIVEN no OTLP endpoint WHEN a wakeup runs THEN no SDK is started, nothing is exported, the row\'s trace_context stays null and the session gets no TRACEPARENT', async () => {
    receiver = await startOtlpReceiver();
    h = await startHarness({});
    const { agentId } = await seedAgent(h, { cooldown_sec: 0, executor: fixtureAgent('trace-context.mjs') });
    const woken = await wakeAndRun(h, agentId, 'untraced');
    // The API's tracer is its no-op one: no provider was registered behind its proxy.
    expect((trace.getTracerProvider() as ProxyTracerProvider).getDelegate().constructor.name).toBe('NoopTracerProvider');
    await h.stop();
    h = null;
    expect(woken.traceContext).toBeNull();
    expect(woken.reported).toMatchObject({ traceparent: null, tracestate: null });
    expect(receiver.requests).toBe(0);
  });

  it('GIVEN an OTLP endpoint WHEN two wakeups run THEN each is one trace of four spans, enqueue -> claim -> run -> finish, and the session got the run span as TRACEPARENT', async () => {
    receiver = await startOtlpReceiver();
    h = await startHarness({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const { agentId } = await seedAgent(h, { cooldown_sec: 0, executor: fixtureAgent('trace-context.mjs') });
    const first = await wakeAndRun(h, agentId, 'first');
    const second = await wakeAndRun(h, agentId, 'second', 'the-second');
    // A repeat of the second request: a trace of its own enqueue span, which names the second.
    const repeat = await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'second', idempotency_key: 'the-second' });
    expect(repeat.status).toBe(200);
    // Stopping the scheduler shuts its SDK down, which exports what is still batched.
    await h.stop();
    h = null;

    for (const woken of [first, second]) {
      const enqueue = receiver.spans.find((span) => span.name === 'wakeup.enqueue' && span.attributes['office.wakeup.id'] === woken.wakeupId)!;
      expect(enqueue).toBeDefined();
      const spans = traceOf(receiver.spans, enqueue.traceId);
      expect(spans.map((span) => span.name).sort()).toEqual(['wakeup.claim', 'wakeup.enqueue', 'wakeup.finish', 'wakeup.run']);
      const [claim] = named(spans, 'wakeup.claim');
      const [run] = named(spans, 'wakeup.run');
      const [finish] = named(spans, 'wakeup.finish');
      expect(enqueue.parentSpanId).toBe('');
      expect(claim!.parentSpanId).toBe(enqueue.spanId);
      expect(run!.parentSpanId).toBe(claim!.spanId);
      expect(finish!.parentSpanId).toBe(run!.spanId);
      expect(run!.attributes).toMatchObject({ 'office.wakeup.id': woken.wakeupId, 'office.run.id': woken.runId, 'office.run.ok': true });
      expect(claim!.attributes).toMatchObject({ 'office.wakeup.id': woken.wakeupId, 'office.claim.outcome': 'launch' });
      // The row carries the enqueue span's context; the session, the run span's.
      expect(woken.traceContext).toBe(`00-${enqueue.traceId}-${enqueue.spanId}-01`);
      expect(woken.reported.traceparent).toBe(`00-${run!.traceId}-${run!.spanId}-01`);
      expect(enqueue.resource).toMatchObject({ 'service.name': 'office-scheduler' });
      expect(enqueue.resource['office.replica.id']).toEqual(expect.any(String));
    }
    const repeated = receiver.spans.find((span) => span.name === 'wakeup.enqueue' && span.attributes['office.wakeup.outcome'] === 'duplicate')!;
    expect(repeated.attributes['office.wakeup.duplicate_of']).toBe(second.wakeupId);
    expect(traceOf(receiver.spans, repeated.traceId)).toHaveLength(1);
    expect(new Set(receiver.spans.map((span) => span.traceId)).size).toBe(3);
  });

  it('GIVEN an OTLP endpoint WHEN an http agent\'s wakeup runs THEN its POST carries the run span as traceparent', async () => {
    const posts: IncomingHttpHeaders[] = [];
    const agentServer = createServer((req, res) => {
      posts.push(req.headers);
      req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"summary":"done"}'));
    });
    await new Promise<void>((resolve) => agentServer.listen(0, '127.0.0.1', resolve));
    try {
      receiver = await startOtlpReceiver();
      h = await startHarness({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
      const url = `http://127.0.0.1:${(agentServer.address() as AddressInfo).port}/agent`;
      const { agentId } = await seedAgent(h, { executor: { kind: 'http', url } });
      const woken = await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'over http' });
      const wakeupId: string = woken.body.wakeup.id;
      await h.waitFor(async () => (await h!.inspect.rows<{ status: string }>('runs', { wakeup_id: wakeupId })).find((r) => r.status === 'succeeded'), 'the http run');
      await h.stop();
      h = null;
      const run = receiver.spans.find((span) => span.name === 'wakeup.run' && span.attributes['office.wakeup.id'] === wakeupId)!;
      expect(run).toBeDefined();
      expect(posts.map((headers) => headers.traceparent)).toEqual([`00-${run.traceId}-${run.spanId}-01`]);
    } finally {
      agentServer.closeAllConnections();
      await new Promise<void>((resolve) => agentServer.close(() => resolve()));
    }
  });

  it('GIVEN tracing off or on WHEN a wakeup runs THEN off, no statement names trace_context; on, only the enqueue writes it, and the wakeup costs the same statements', async () => {
    receiver = await startOtlpReceiver();
    const off = await statementsOfOneWakeup({});
    const on = await statementsOfOneWakeup({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    expect(off.texts.filter((text) => text.includes('trace_context'))).toEqual([]);
    const writing = on.texts.filter((text) => text.includes('trace_context'));
    expect(writing).toHaveLength(1);
    expect(writing[0]).toMatch(/INSERT INTO agent_wakeup_requests/);
    expect(on.count).toBe(off.count);
  });
});
