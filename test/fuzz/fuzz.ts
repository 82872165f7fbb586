/**
 * Fuzzing the real app with fast-check: random and malformed requests across every route, mostly
 * in-process (fastify's inject) and a share over real HTTP. Invariants, checked per request:
 * never a 5xx; a rejected request (4xx) changes nothing in the database (the write counter and
 * every table's row count and max rowid are unchanged once everything it set off has settled),
 * and answers with the `{error: {code, message}}` envelope; at the end the server is still ready.
 */
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { createFuzzTarget, hmacOf, type Fingerprint, type FuzzTarget } from './target.js';
import { planArbitrary, type FuzzPlan, type IdRef } from './requests.js';

export interface FuzzOptions {
  runs: number;
  seed?: number;
  log?: (line: string) => void;
}

export interface FuzzReport {
  seed: number;
  runs: number;
  routes: number;
  byStatus: Record<string, number>;
  byBodyKind: Record<string, number>;
  /** Status counts per route and body kind. */
  byRoute: Record<string, Record<string, number>>;
  /** A sample answer per (route, body kind, status), to see why requests are refused. */
  samples: Record<string, string>;
  overHttp: number;
  violations: string[];
  readyAtEnd: boolean;
  elapsedMs: number;
}

interface Concrete {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload: string | undefined;
}

function isIdRef(value: unknown): value is IdRef {
  return typeof value === 'object' && value !== null && '$id' in value && 'n' in value && Object.keys(value).length === 2;
}

function resolveId(target: FuzzTarget, ref: IdRef): string {
  if (ref.$id === 'webhook') return target.webhooks[ref.n % target.webhooks.length]!.publicId;
  const pool = ref.$id === '*' ? [...target.ids.values()].flat() : target.ids.get(ref.$id) ?? [];
  return pool.length ? pool[ref.n % pool.length]! : `${ref.$id}_00000000000000000000000000000000`;
}

/** Ids resolved; anything that could run is pointed at nothing. */
function resolveBody(target: FuzzTarget, value: unknown, depth = 0): unknown {
  if (depth > 50) return value;
  if (isIdRef(value)) return resolveId(target, value);
  if (Array.isArray(value)) return value.map((item) => resolveBody(target, item, depth + 1));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) out[key] = resolveBody(target, field, depth + 1);
  if ('command' in out) out.command = '/nonexistent/office-fuzz-agent';
  if ('url' in out) out.url = 'http://127.0.0.1:9/office-fuzz';
  return out;
}

/** A lone surrogate cannot be URI-encoded; its UTF-8 bytes (as the WTF-8 a raw client would send) can. */
function safeEncode(text: string, encode: (s: string) => string): string {
  try {
    return encode(text);
  } catch {
    return [...Buffer.from(text)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
}

function deepJson(depth: number, object: boolean): string {
  return object ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

export function materialize(target: FuzzTarget, plan: FuzzPlan): Concrete {
  let path = plan.route.path;
  for (const [name, value] of Object.entries(plan.params)) {
    const text = isIdRef(value) ? resolveId(target, value) : String(value);
    path = name === '*' ? path.replace(/\*$/, () => safeEncode(text, encodeURI)) : path.replace(`:${name}`, () => safeEncode(text, encodeURIComponent));
  }
  let query = '';
  if (typeof plan.query === 'string') query = plan.query;
  else if (plan.query && plan.query.length) {
    const search = new URLSearchParams();
    for (const [key, value] of plan.query) {
      const resolved = isIdRef(value) ? resolveId(target, value) : value;
      search.append(key, typeof resolved === 'object' && resolved !== null ? JSON.stringify(resolved) : String(resolved));
    }
    query = search.toString();
  }
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(plan.headers)) if (typeof value === 'string') headers[key] = value;

  let payload: string | undefined;
  let contentType: string | null = 'application/json';
  const body = resolveBody(target, plan.body);
  switch (plan.bodyKind) {
    case 'none': payload = undefined; contentType = null; break;
    case 'empty': payload = ''; break;
    case 'malformed': payload = String(plan.body); break;
    case 'deep': payload = deepJson(plan.size, plan.size % 2 === 0); break;
    case 'oversized': payload = JSON.stringify({ title: 'x'.repeat(target.bodyLimit + plan.size) }); break;
    case 'huge-field': {
      const big = 'é'.repeat(150_000 + plan.size);
      payload = JSON.stringify(body && typeof body === 'object' && !Array.isArray(body)
        ? Object.fromEntries(Object.entries(body).map(([k, v], i) => [k, i === plan.size % Math.max(1, Object.keys(body).length) ? big : v]))
        : { name: big, title: big });
      break;
    }
    case 'wrong-type': payload = JSON.stringify(body) ?? ''; contentType = plan.contentType; break;
    default: payload = JSON.stringify(body) ?? 'null';
  }
  if (contentType) headers['content-type'] = contentType;

  // Webhook deliveries: signed right, wrong, with garbage, or not at all.
  const webhook = /^\/api\/routine-triggers\/([^/]+)\/fire$/.exec(path);
  const trigger = webhook ? target.webhooks.find((w) => w.publicId === decodeURIComponent(webhook[1]!)) : undefined;
  if (trigger) {
    const raw = payload ?? '';
    if (plan.signature === 'garbage') headers['x-hub-signature-256'] = 'sha256=zz';
    if (plan.signature === 'wrong-secret') headers['x-hub-signature-256'] = hmacOf('not-the-secret', raw);
    if (plan.signature === 'right' && trigger.secret) headers['x-hub-signature-256'] = hmacOf(trigger.secret, raw);
    if (plan.signature === 'bearer-wrong') headers.authorization = 'Bearer not-the-secret';
    if (plan.signature === 'bearer-right' && trigger.secret) headers.authorization = `Bearer ${trigger.secret}`;
  }
  return { method: plan.method, url: `${path}${query ? `?${query}` : ''}`, headers, payload };
}

interface Answer {
  status: number;
  body: string;
  error?: string;
}

function overHttp(base: URL, request: Concrete): Promise<Answer> {
  return new Promise((resolve) => {
    // Content-Length, not chunked: Node's own HTTP parser refuses a chunked GET body before the
    // app sees it (with fastify's default client-error answer), which is transport, not the app.
    const headers = request.payload === undefined ? request.headers : { ...request.headers, 'content-length': String(Buffer.byteLength(request.payload)) };
    const req = httpRequest({
      host: base.hostname, port: base.port, method: request.method, path: request.url, headers,
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', (error) => resolve({ status: res.statusCode ?? 0, body: '', error: error.message }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.on('error', (error) => resolve({ status: 0, body: '', error: error.message }));
    req.end(request.payload);
  });
}

function diff(before: Fingerprint, after: Fingerprint): string | null {
  const changed = Object.keys(after.rows).filter((table) => String(before.rows[table]) !== String(after.rows[table]));
  if (before.writes === after.writes && changed.length === 0) return null;
  return `${after.writes - before.writes} write(s); tables ${changed.map((t) => `${t} ${before.rows[t]} -> ${after.rows[t]}`).join(', ') || '(updates only)'}`;
}

function describe(request: Concrete): string {
  const payload = request.payload === undefined ? '' : request.payload.length > 300 ? `${request.payload.slice(0, 300)}… (${request.payload.length} chars)` : request.payload;
  return `${request.method} ${request.url.slice(0, 300)} ${JSON.stringify(request.headers).slice(0, 300)} ${payload}`;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const target = await createFuzzTarget();
  const app = target.scheduler.app;
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const base = new URL(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
  const byStatus: Record<string, number> = {};
  const byBodyKind: Record<string, number> = {};
  const byRoute: Record<string, Record<string, number>> = {};
  const samples: Record<string, string> = {};
  const violations: string[] = [];
  let overHttpCount = 0;
  let index = 0;

  const property = fc.asyncProperty(planArbitrary(target.routes), async (plan) => {
    index++;
    await target.settle();
    const before = target.fingerprint();
    const request = materialize(target, plan);
    let answer: Answer;
    if (plan.viaHttp) {
      overHttpCount++;
      answer = await overHttp(base, request);
    } else {
      const response = await app.inject({ method: request.method as never, url: request.url, headers: request.headers, payload: request.payload });
      answer = { status: response.statusCode, body: response.body };
    }
    await target.settle();
    const after = target.fingerprint();
    byStatus[answer.status || answer.error || 'none'] = (byStatus[answer.status || answer.error || 'none'] ?? 0) + 1;
    byBodyKind[plan.bodyKind] = (byBodyKind[plan.bodyKind] ?? 0) + 1;
    const routeKey = `${plan.route.method} ${plan.route.path} [${plan.bodyKind}]`;
    const statusKey = String(answer.status || answer.error);
    (byRoute[routeKey] ??= {})[statusKey] = (byRoute[routeKey]![statusKey] ?? 0) + 1;
    samples[`${routeKey} ${statusKey}`] ??= answer.body.slice(0, 200);
    const problems: string[] = [];
    if (answer.error) {
      // A server may close the connection on a body it refuses to read; nothing else may fail.
      if (!(plan.bodyKind === 'oversized' && /ECONNRESET|EPIPE|socket hang up/.test(answer.error))) problems.push(`transport error ${answer.error}`);
      else if (diff(before, after)) problems.push(`refused connection changed the database: ${diff(before, after)}`);
    } else if (answer.status >= 500) {
      problems.push(`server error ${answer.status}: ${answer.body.slice(0, 500)}`);
    } else if (answer.status >= 400) {
      const changed = diff(before, after);
      if (changed) problems.push(`rejected with ${answer.status} but changed the database: ${changed}; answer ${answer.body.slice(0, 300)}`);
      if (request.method !== 'HEAD') {
        let envelope = false;
        try {
          const parsed = JSON.parse(answer.body) as { error?: { code?: unknown; message?: unknown } };
          envelope = typeof parsed.error?.code === 'string' && typeof parsed.error?.message === 'string';
        } catch {
          envelope = false;
        }
        if (!envelope) problems.push(`${answer.status} without the error envelope: ${answer.body.slice(0, 200)}`);
      }
    } else if (request.method === 'DELETE') {
      target.forget(decodeURIComponent(request.url.split('?')[0]!.split('/').pop() ?? ''));
    } else if (answer.body) {
      try {
        target.learn(JSON.parse(answer.body));
      } catch {
        // Not JSON (metrics, the dashboard): nothing to learn.
      }
    }
    if (problems.length) {
      const line = `request #${index}: ${problems.join('; ')}\n    ${describe(request)}`;
      violations.push(line);
      throw new Error(line);
    }
    if (options.log && index % 1000 === 0) options.log(`${index} requests`);
  });

  try {
    await fc.assert(property, { numRuns: options.runs, seed, endOnFailure: true });
  } catch (error) {
    if (violations.length === 0) violations.push(`fast-check: ${(error as Error).message.slice(0, 2000)}`);
  }
  await target.settle();
  const ready = await fetch(new URL('/readyz', base)).then((r) => r.status === 200, () => false);
  const healthy = await fetch(new URL('/healthz', base)).then((r) => r.status === 200, () => false);
  if (!ready || !healthy) violations.push(`server not ready at the end (readyz ${ready}, healthz ${healthy})`);
  await target.close();
  return {
    seed, runs: index, routes: target.routes.length, byStatus, byBodyKind, byRoute, samples, overHttp: overHttpCount, violations,
    readyAtEnd: ready, elapsedMs: Date.now() - started,
  };
}
