import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { z } from 'zod';
import { HealthSchema, ReplicaSchema } from '../../domain/responseSchemas.js';
import { toApi } from '../serialize.js';
import { errorBody } from '../errors.js';
import { LIST_ERRORS, NO_SECURITY, operation } from '../openapi.js';

/** Under the idle timeouts of common proxies, so an idle stream is not cut. */
const KEEP_ALIVE_MS = 15_000;
const STREAM_RETRY_MS = 2_000;

/** Liveness, readiness, metrics and the live event stream. */
export function systemRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    app.get('/healthz', { schema: operation({ operationId: 'getHealth', summary: 'Liveness: the process answers', tag: 'System', security: NO_SECURITY,
      success: { 200: HealthSchema }, errors: [421] }), config: { access: 'public' } }, async () => ({ status: 'ok' }));
    app.get('/readyz', { schema: operation({ operationId: 'getReadiness', summary: 'Readiness: actors restored and the database writable', tag: 'System', security: NO_SECURITY,
      success: { 200: HealthSchema }, errors: [421, 503] }), config: { access: 'public' } }, async (_req, reply) => {
      if (!ctx.isReady()) return reply.code(503).send(errorBody('not_ready', 'actors are still being restored'));
      // Readiness follows storage: a scheduler that cannot record anything should get no traffic.
      const storage = ctx.store.storageHealth();
      if (!storage.writable) return reply.code(503).send(errorBody('storage_unavailable', storage.failure ?? 'the database cannot be written'));
      return { status: 'ready' };
    });
    app.get('/metrics', { schema: operation({ operationId: 'getMetrics', summary: 'Prometheus metrics', tag: 'System', security: NO_SECURITY,
      success: { 200: { description: 'Prometheus text exposition format 0.0.4.', schema: z.string(), contentType: 'text/plain' } }, errors: [421] }), config: { access: 'public' } }, async (_req, reply) =>
      reply.type('text/plain; version=0.0.4').send(await ctx.metrics()));

    // The live replicas on the database (API.md, "Several replicas on PostgreSQL"); with SQLite, this process.
    app.get('/api/office/replicas', { schema: operation({ operationId: 'listReplicas', summary: 'List the live replicas', tag: 'System',
      success: { 200: z.array(ReplicaSchema) }, errors: LIST_ERRORS,
      description: 'Every scheduler process on the database whose heartbeat has not expired, with the agents whose lease it holds.' }), config: { access: 'read' } }, async () => {
      const replicas = await ctx.store.query((tx) => tx.replicas.list(ctx.clock.now()));
      return toApi(replicas.map(({ id, started_at, heartbeat_at, expires_at, agents_owned }) => ({ id, started_at, heartbeat_at, expires_at, agents_owned })));
    });

    // Server-sent events: wakeup, run and actor changes as they happen. EventSource cannot send
    // headers, so this route (only this one) also takes the API token as `?token=` (see auth.ts).
    const open = new Set<import('node:http').ServerResponse>();
    app.addHook('preClose', async () => {
      // An open stream would hold the server open forever on shutdown.
      for (const response of open) response.end();
      open.clear();
    });
    // Every workspace's events go through it: not for a run token, which reads only its own workspace.
    // Hidden from the document: a server-sent event stream, not a JSON operation a client generator can use (README: the dashboard section).
    // Never compressed: an encoder holds events back until its buffer fills. The hijack already bypasses
    // the compression hook; `compress: false` says so, and X-Accel-Buffering asks a proxy (nginx) not to buffer either.
    app.get('/api/office/stream', { schema: { hide: true }, compress: false, config: { access: 'read', queryToken: true, agentRead: false } }, (req, reply) => {
      reply.hijack();
      const response = reply.raw;
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
      // Browsers reconnect on their own; a short retry keeps a restarted server's dashboard current.
      response.write(`retry: ${STREAM_RETRY_MS}\nevent: hello\ndata: ${JSON.stringify({ agents: ctx.feed.getSnapshot().context.agents })}\n\n`);
      open.add(response);
      const subscription = ctx.feed.on('changed', ({ item, sequence }) => {
        response.write(`id: ${sequence}\nevent: ${item.kind}\ndata: ${JSON.stringify(item)}\n\n`);
      });
      const keepAlive = setInterval(() => response.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
      req.raw.on('close', () => {
        clearInterval(keepAlive);
        subscription.unsubscribe();
        open.delete(response);
      });
    });
  };
}
