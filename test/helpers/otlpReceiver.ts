/**
 * A local OTLP/HTTP trace receiver: `POST /v1/traces` with the JSON body the OTLP/HTTP exporter
 * sends (application/json, gzip-compressed when OTEL_EXPORTER_OTLP_COMPRESSION says so), answered
 * as a collector would. Every span received is kept, flattened, with its resource's attributes.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a trace's root. */
  parentSpanId: string;
  name: string;
  attributes: Record<string, string | number | boolean | undefined>;
  links: { traceId: string; spanId: string; attributes: Record<string, string | number | boolean | undefined> }[];
  resource: Record<string, string | number | boolean | undefined>;
}

export interface OtlpReceiver {
  /** The base endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url: string;
  spans: ReceivedSpan[];
  /** How many export requests arrived, whatever their path. */
  requests: number;
  close(): Promise<void>;
}

const valueOf = (value: AnyValue) => value.stringValue ?? value.boolValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.doubleValue);
const attributesOf = (list: KeyValue[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return (request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver: OtlpReceiver = { url: '', spans: [], requests: 0, close: async () => undefined };
  const server = createServer((request, response) => {
    receiver.requests++;
    void bodyOf(request).then((text) => {
      if (request.method !== 'POST' || request.url !== '/v1/traces' || !String(request.headers['content-type']).startsWith('application/json')) {
        response.writeHead(404).end();
        return;
      }
      for (const resourceSpans of JSON.parse(text).resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            receiver.spans.push({
              traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId ?? '', name: span.name,
              attributes: attributesOf(span.attributes), resource,
              links: (span.links ?? []).map((link: { traceId: string; spanId: string; attributes?: KeyValue[] }) => ({
                traceId: link.traceId, spanId: link.spanId, attributes: attributesOf(link.attributes),
              })),
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () => new Promise((resolve) => server.close(() => resolve()));
  return receiver;
}

/** The spans of one trace, by name (each name once: a wakeup's first attempt). */
export function traceOf(spans: readonly ReceivedSpan[], traceId: string): ReceivedSpan[] {
  return spans.filter((span) => span.traceId === traceId);
}
