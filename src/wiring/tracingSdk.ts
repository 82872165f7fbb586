/**
 * The OpenTelemetry SDK of this process, started with the scheduler when tracing is on
 * (config.tracesEndpoint, from OTEL_EXPORTER_OTLP_ENDPOINT) and shut down with it, which exports the
 * spans still batched. Off, nothing is started: the API's tracer stays its no-op one.
 *
 * The SDK registers the process's one global tracer provider, so schedulers in one process (tests,
 * an embedding program) share it: the first to start starts it, with its replica id in the
 * resource, and the last to stop shuts it down. Each span names its own replica (office.replica.id).
 *
 * The SDK and its exporter are imported only when tracing is on: they are about 20 MB of a
 * process's memory, which a scheduler with tracing off (the default) would hold for nothing.
 */
import { trace } from '@opentelemetry/api';
import type { NodeSDK } from '@opentelemetry/sdk-node';
import type { Config } from '../config.js';
import { SERVICE_NAME } from '../telemetry/tracing.js';

export interface TracingSdk {
  /** Exports what is batched and, once no scheduler of this process uses it, stops the SDK. Once per start. */
  shutdown(): Promise<void>;
}

let shared: { sdk: NodeSDK; users: number } | null = null;

export async function startTracingSdk(config: Pick<Config, 'tracesEndpoint' | 'replicaId'>): Promise<TracingSdk | null> {
  if (!config.tracesEndpoint) return null;
  const [{ NodeSDK, resources }, { OTLPTraceExporter }] = await Promise.all([
    import('@opentelemetry/sdk-node'), import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  // Another scheduler of this process may have started it while the modules loaded.
  if (!shared) {
    const sdk = new NodeSDK({
      serviceName: SERVICE_NAME,
      resource: resources.defaultResource().merge(resources.resourceFromAttributes({
        'service.instance.id': config.replicaId, 'office.replica.id': config.replicaId,
      })),
      // OTLP over HTTP with JSON bodies; headers, timeouts and compression come from the standard OTEL_EXPORTER_OTLP_* variables.
      traceExporter: new OTLPTraceExporter({ url: config.tracesEndpoint }),
      // Traces only: metrics are /metrics' (prom-client), logs are pino's; no instrumentation of other libraries.
      metricReaders: [],
      logRecordProcessors: [],
      instrumentations: [],
      textMapPropagator: null,
    });
    sdk.start();
    shared = { sdk, users: 0 };
  }
  const running = shared;
  running.users++;
  let stopped = false;
  return {
    async shutdown() {
      if (stopped) return;
      stopped = true;
      if (--running.users > 0) return;
      if (shared === running) shared = null;
      await running.sdk.shutdown();
      // The global provider is given up too, so that a scheduler started later in this process registers its own.
      trace.disable();
    },
  };
}
