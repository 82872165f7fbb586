import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { errorBody } from '../errors.js';

/** Liveness, readiness, metrics and the live event stream. */
export function systemRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
    app.get('/readyz', { schema: { hide: true } }, async (_req, reply) =>
      ctx.isReady() ? { status: 'ready' } : reply.code(503).send(errorBody('not_ready', 'actors are still being restored')));
    app.get('/metrics', { schema: { hide: true } }, async (_req, reply) =>
      reply.type('text/plain; version=0.0.4').send(await ctx.metrics()));

    // Server-sent events: wakeup, run and actor changes as they happen.
    app.get('/api/office/stream', { schema: { hide: true } }, (req, reply) => {
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      reply.raw.write(`event: hello\ndata: ${JSON.stringify({ agents: ctx.feed.getSnapshot().context.agents })}\n\n`);
      const subscription = ctx.feed.on('changed', ({ item, sequence }) => {
        reply.raw.write(`id: ${sequence}\nevent: ${item.kind}\ndata: ${JSON.stringify(item)}\n\n`);
      });
      const keepAlive = setInterval(() => reply.raw.write(': keep-alive\n\n'), 15_000);
      req.raw.on('close', () => {
        clearInterval(keepAlive);
        subscription.unsubscribe();
      });
    });
  };
}
