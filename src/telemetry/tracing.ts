/**
 * One trace per wakeup (README, "Tracing"): its spans are enqueue -> claim -> run -> finish, each the
 * child of the one before. The enqueue span is the trace's root; its W3C traceparent goes on the
 * wakeup's row (`trace_context`), so that whichever replica claims the wakeup, now or after a
 * restart, continues the same trace. A retry is a second claim -> run -> finish under the same
 * enqueue span. The run span's context is what the agent's session gets as TRACEPARENT.
 *
 * A request that folds into another wakeup (the coalescing window, an unstarted run) keeps its own
 * trace, of its enqueue span alone, with a link to the enqueue span of the wakeup that carries it:
 * its row keeps its own context, so should it go back to the queue on its own (requeueFolded), its
 * claim continues its own trace.
 *
 * The tracer is the OpenTelemetry API's. With no SDK started (tracing off) it is the API's no-op
 * tracer: its spans do not record, no context is written to any row, and no statement changes.
 * This module is the only one of services and dispatch that names OpenTelemetry.
 */
import {
  ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, isSpanContextValid, trace,
  type Attributes, type Span, type SpanContext, type Tracer, type TracerProvider,
} from '@opentelemetry/api';

/** The tracer's name, and the service name of the SDK's resource. */
export const SERVICE_NAME = 'office-scheduler';

/** Span names, one per step of a wakeup. */
export const SPAN = { enqueue: 'wakeup.enqueue', claim: 'wakeup.claim', run: 'wakeup.run', finish: 'wakeup.finish' } as const;

/** A span context as W3C Trace Context carries it between processes: the TRACEPARENT (and TRACESTATE) of a session. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/** W3C traceparent, version 00: `00-<trace id>-<parent span id>-<flags>`. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function formatTraceparent(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-0${(span.traceFlags & TraceFlags.SAMPLED).toString(16)}`;
}

/** The span context a stored traceparent names, as a remote parent; undefined for no or a malformed value. */
export function parseTraceparent(text: string | null | undefined): SpanContext | undefined {
  const match = text ? TRACEPARENT.exec(text) : null;
  if (!match) return undefined;
  const parsed: SpanContext = { traceId: match[1]!, spanId: match[2]!, traceFlags: parseInt(match[3]!, 16), isRemote: true };
  return isSpanContextValid(parsed) ? parsed : undefined;
}

/** What the enqueue span learns of its request once the store decided. */
export interface EnqueueDecision {
  kind: string;
  wakeup?: { id: string; workspace_id: string; trace_context?: string | null | undefined };
  /** The wakeup a fold went into (linked to, when its trace context is known), or the one holding the idempotency key. */
  into?: { id: string; trace_context?: string | null | undefined };
}

/** The enqueue span of one request. */
export interface EnqueueTrace {
  /** The traceparent to store with the row; undefined when the span does not record (tracing off). */
  readonly traceContext: string | undefined;
  /** Records what the store decided; the span ends when the transaction commits (`afterCommit`), never for a rolled-back one. */
  decided(decision: EnqueueDecision, afterCommit: (end: () => void) => void): void;
}

/** What the claim span learns from the dispatch's preparation. */
export interface ClaimDecision {
  kind: string;
  wakeup?: { id: string; agent_id: string; workspace_id: string; source: string; retry_count: number; trace_context?: string | null | undefined };
  run?: { id: string; attempt: number };
}

/** The claim span of one dispatch, started before its claim: its parent is known once the claim read the row. */
export interface ClaimTrace {
  /** Ends the claim span; for a launch, starts the run span under it. */
  claimed(decision: ClaimDecision): RunTrace;
}

/** The run span of one launched run: from the launch to the end of its finish. */
export interface RunTrace {
  /** The run span's context for the session's TRACEPARENT; null when it does not record. */
  readonly carrier: TraceCarrier | null;
  /** Runs the finish inside a finish span, child of the run span. */
  finishing<T>(finish: () => Promise<T>): Promise<T>;
  /** Ends the run span, with how the session ended (null: it never started); once, whoever calls it first. */
  end(result: { ok: boolean; error?: string | null | undefined } | null): void;
}

const NO_RUN: RunTrace = { carrier: null, finishing: (finish) => finish(), end: () => undefined };
const NO_ENQUEUE: EnqueueTrace = { traceContext: undefined, decided: () => undefined };

/** The spans of wakeups, each with the replica that recorded it (`office.replica.id`). */
export class WakeupTracing {
  private provider: TracerProvider | null = null;
  private current: Tracer | null = null;

  /** `providerOf`: where its tracer comes from, asked at each span; default the OpenTelemetry API's global provider. */
  constructor(private readonly replicaId: string, private readonly providerOf: () => TracerProvider = () => trace.getTracerProvider()) {}

  /**
   * The API's tracer: the SDK's once one is started, else the no-op one. Asked again when the global
   * provider changes (an SDK stopped and another started in this process).
   */
  private get tracer(): Tracer {
    const provider = this.providerOf();
    if (provider !== this.provider || !this.current) {
      this.provider = provider;
      this.current = provider.getTracer(SERVICE_NAME);
    }
    return this.current;
  }

  /** The enqueue span of a new request: the root of its trace. */
  enqueue(request: { agent_id: string; source: string; reason?: string | undefined }): EnqueueTrace {
    const span = this.tracer.startSpan(SPAN.enqueue, {
      kind: SpanKind.PRODUCER, root: true,
      attributes: this.attributes({ 'office.agent.id': request.agent_id, 'office.wakeup.source': request.source }),
    }, ROOT_CONTEXT);
    if (!span.isRecording()) return NO_ENQUEUE;
    return {
      traceContext: formatTraceparent(span.spanContext()),
      decided: (decision, afterCommit) => {
        span.setAttribute('office.wakeup.outcome', decision.kind);
        if (decision.wakeup) span.setAttributes({ 'office.wakeup.id': decision.wakeup.id, 'office.workspace.id': decision.wakeup.workspace_id });
        const into = decision.into;
        if (into) {
          span.setAttribute(decision.kind === 'duplicate' ? 'office.wakeup.duplicate_of' : 'office.wakeup.coalesced_into', into.id);
          const target = parseTraceparent(into.trace_context);
          if (target) span.addLink({ context: target, attributes: { 'office.link': decision.kind } });
        }
        afterCommit(() => span.end());
      },
    };
  }

  /** Before the claim: the claim span's start. */
  claiming(): ClaimTrace {
    const startTime = performance.now();
    return { claimed: (decision) => this.claimed(decision, startTime) };
  }

  private claimed(decision: ClaimDecision, startTime: number): RunTrace {
    const { wakeup } = decision;
    // Nothing was claimed (the wakeup was gone, or the lease not this replica's): no step of any wakeup's trace.
    if (!wakeup) return NO_RUN;
    const parent = parseTraceparent(wakeup.trace_context);
    const claim = this.tracer.startSpan(SPAN.claim, {
      kind: SpanKind.CONSUMER, startTime,
      attributes: this.attributes({
        'office.wakeup.id': wakeup.id, 'office.agent.id': wakeup.agent_id, 'office.workspace.id': wakeup.workspace_id,
        'office.wakeup.source': wakeup.source, 'office.wakeup.retry_count': wakeup.retry_count, 'office.claim.outcome': decision.kind,
      }),
    }, parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT);
    const run = decision.run && claim.isRecording() ? this.startRun(claim, wakeup.id, decision.run) : NO_RUN;
    claim.end();
    return run;
  }

  private startRun(claim: Span, wakeupId: string, run: { id: string; attempt: number }): RunTrace {
    const within = trace.setSpan(ROOT_CONTEXT, claim);
    const span = this.tracer.startSpan(SPAN.run, {
      attributes: this.attributes({ 'office.wakeup.id': wakeupId, 'office.run.id': run.id, 'office.run.attempt': run.attempt }),
    }, within);
    const runContext = trace.setSpan(ROOT_CONTEXT, span);
    const state = span.spanContext().traceState?.serialize();
    let ended = false;
    return {
      carrier: { traceparent: formatTraceparent(span.spanContext()), ...(state ? { tracestate: state } : {}) },
      finishing: async (finish) => {
        const finishing = this.tracer.startSpan(SPAN.finish, { attributes: this.attributes({ 'office.run.id': run.id }) }, runContext);
        try {
          return await finish();
        } catch (error) {
          finishing.recordException(error as Error);
          finishing.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
          throw error;
        } finally {
          finishing.end();
        }
      },
      end: (result) => {
        if (ended) return;
        ended = true;
        if (result) span.setAttribute('office.run.ok', result.ok);
        else span.setAttribute('office.run.started', false);
        if (result && !result.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: (result.error ?? 'the run failed').slice(-500) });
        span.end();
      },
    };
  }

  private attributes(own: Attributes): Attributes {
    return { 'office.replica.id': this.replicaId, ...own };
  }
}
