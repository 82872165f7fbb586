/**
 * How the server serves what is not an API operation, against the real server and the built
 * dashboard: hashed assets cached for good with an ETag, index.html (for every client-side route)
 * always revalidated, responses over the threshold compressed with brotli or gzip as asked (JSON
 * included) and decoding to the same bytes, and the event stream never compressed nor held back.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboard } from '../../scripts/ensure-dashboard.mjs';
import { dashboardRoutes } from '../../src/http/dashboard.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { openStream } from '../helpers/stream.js';

const DIST = fileURLToPath(new URL('../../dashboard/dist/', import.meta.url));
const IMMUTABLE = 'public, max-age=31536000, immutable';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as they came over the wire, still encoded. */
  body: Buffer;
}

/** A GET through node:http, which (unlike fetch) leaves the body as it was sent. */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    }).on('error', reject).end();
  });
}

function decoded(answer: RawAnswer): Buffer {
  const encoding = answer.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(answer.body);
  if (encoding === 'gzip') return gunzipSync(answer.body);
  throw new Error(`expected a compressed body, got content-encoding ${String(encoding)}`);
}

/** The bundle's script, by the name index.html gives it: a hashed asset. */
function scriptAsset(): string {
  const index = readFileSync(join(DIST, 'index.html'), 'utf8');
  return /src="\/(assets\/[^"]+\.js)"/.exec(index)![1]!;
}

let h: Harness;

describe('serving the dashboard and compressing responses', () => {
  beforeAll(async () => {
    await ensureDashboard({ log: () => {} });
    h = await startHarness();
  }, 60_000);

  afterAll(async () => {
    await h?.stop();
  });

  it('serves a hashed asset as immutable for a year, with an ETag that answers 304', async () => {
    const asset = scriptAsset();
    const first = await rawGet(`${h.url}/${asset}`);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toMatch(/javascript/);
    expect(first.headers['cache-control']).toBe(IMMUTABLE);
    expect(first.headers.etag).toBeTruthy();
    expect(first.body.equals(readFileSync(join(DIST, asset)))).toBe(true);

    const again = await rawGet(`${h.url}/${asset}`, { 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('serves index.html, for the root and for client-side routes, revalidated on every use', async () => {
    const index = readFileSync(join(DIST, 'index.html'));
    for (const path of ['/', '/office/tasks', '/office/agents/agt_123']) {
      const answer = await rawGet(`${h.url}${path}`);
      expect(answer.status, path).toBe(200);
      expect(answer.headers['content-type'], path).toBe('text/html; charset=utf-8');
      expect(answer.headers['cache-control'], path).toBe('no-cache');
      expect(answer.headers.etag, path).toBeTruthy();
      expect(answer.body.equals(index), path).toBe(true);
    }
  });

  it('answers unknown API paths and missing hashed assets with the JSON 404, never with index.html', async () => {
    const api = await h.api('GET', '/api/office/no-such-thing');
    // Under /api/office/ without a token configured: the not-found envelope.
    expect(api.status).toBe(404);
    expect(api.body.error.code).toBe('not_found');
    const other = await h.api('GET', '/api/elsewhere');
    expect(other).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    const stale = await h.api('GET', '/assets/index-0ldbu1ld.js');
    expect(stale).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    const outside = await rawGet(`${h.url}/..%2f..%2fpackage.json`);
    expect(outside.body.toString()).not.toContain('"name": "office-scheduler"');
  });

  it('compresses the asset, the document and a JSON API list as asked, to bodies that decode to the same bytes', async () => {
    const ws = await h.api('POST', '/api/office/workspaces', { name: 'Compressed' });
    for (let i = 0; i < 12; i += 1) {
      await h.api('POST', '/api/office/tasks', { workspace_id: ws.body.id, title: `Task ${i}`, description: 'A description long enough to add up. '.repeat(3) });
    }
    const paths = [`/${scriptAsset()}`, '/openapi.json', `/api/office/tasks?workspace_id=${ws.body.id}`];
    for (const path of paths) {
      const plain = await rawGet(`${h.url}${path}`);
      expect(plain.headers['content-encoding'], path).toBeUndefined();
      expect(plain.body.length, path).toBeGreaterThan(1024);
      for (const encoding of ['br', 'gzip']) {
        const compressed = await rawGet(`${h.url}${path}`, { 'accept-encoding': encoding });
        expect(compressed.status, path).toBe(200);
        expect(compressed.headers['content-encoding'], `${path} ${encoding}`).toBe(encoding);
        expect(compressed.headers.vary, path).toMatch(/accept-encoding/i);
        expect(compressed.body.length, `${path} ${encoding}`).toBeLessThan(plain.body.length);
        expect(decoded(compressed).equals(plain.body), `${path} ${encoding}`).toBe(true);
      }
    }
  });

  it('keeps the Host guard in front of the dashboard, its assets and the API reference page', async () => {
    for (const path of ['/', `/${scriptAsset()}`, '/docs', '/docs/static/swagger-ui-bundle.js', '/docs/json']) {
      const foreign = await rawGet(`${h.url}${path}`, { host: 'rebound.example' });
      expect(foreign.status, path).toBe(421);
      expect(JSON.parse(foreign.body.toString()).error.code, path).toBe('misdirected_request');
    }
  });

  it('leaves a response under the threshold as it is', async () => {
    const small = await rawGet(`${h.url}/healthz`, { 'accept-encoding': 'br, gzip' });
    expect(small.status).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString())).toEqual({ status: 'ok' });
  });

  it('never compresses the event stream, which delivers each event while it stays open', async () => {
    const ws = await h.api('POST', '/api/office/workspaces', { name: 'Live' });
    const stream = await openStream(`${h.url}/api/office/stream`, { 'accept-encoding': 'br, gzip, deflate' });
    expect(stream.contentType).toBe('text/event-stream');
    expect(stream.contentEncoding).toBeNull();
    const task = await h.api('POST', '/api/office/tasks', { workspace_id: ws.body.id, title: 'Arrives live' });
    const { text } = await stream.readUntil(new RegExp(`"task_id":"${task.body.id}"`));
    expect(text).toContain(`event: task\ndata: {"kind":"task","task_id":"${task.body.id}"}`);
  });
});

describe('a server whose dashboard is not built', () => {
  it('answers the "not built" page, and still the JSON 404 for an API path', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'office-no-dist-'));
    const app = Fastify();
    await app.register(dashboardRoutes(`${empty}/`));
    try {
      const page = await app.inject({ method: 'GET', url: '/office/tasks' });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body).toContain('The dashboard is not built');
      const api = await app.inject({ method: 'GET', url: '/api/office/nothing' });
      expect(api.statusCode).toBe(404);
      expect(api.json().error.code).toBe('not_found');
    } finally {
      await app.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
