import fastifySwagger from '@fastify/swagger';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { registerAuth } from './auth.js';
import type { AppContext } from './context.js';
import { errorBody, handleError } from './errors.js';
import { orgRoutes } from './routes/org.js';
import { observeRoutes } from './routes/observe.js';
import { routineRoutes } from './routes/routines.js';
import { systemRoutes } from './routes/system.js';
import { taskRoutes } from './routes/tasks.js';
import { webhookRoutes } from './routes/webhooks.js';
import { dashboardRoutes } from './dashboard.js';

/** Deeply nested JSON is refused before it is parsed into objects: a cheap guard against abuse. */
const MAX_JSON_DEPTH = 64;

export async function buildApp(ctx: AppContext, logger: Logger): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({ loggerInstance: logger as FastifyBaseLogger, bodyLimit: ctx.config.bodyLimitBytes,
    // Every decision is logged by the services; per-request lines would only drown them.
    logController: new LogController({ disableRequestLogging: true }),
    // Router-level refusals (a malformed URL, a path parameter over the length limit) get the same envelope.
    frameworkErrors: handleError,
    // Ids may be up to 200 characters (schemas.ts); the router's default of 100 would answer 414.
    routerOptions: { maxParamLength: 256 },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((req, reply) => reply.code(404).send(errorBody('not_found', `no route ${req.method} ${req.url.split('?')[0]}`)));
  registerJsonParser(app);

  await app.register(fastifySwagger, {
    openapi: { info: { title: 'Office Scheduler', description: 'Wakes autonomous AI agents.', version: '0.1.0' } },
    transform: jsonSchemaTransform,
  });
  registerAuth(app, ctx.store, ctx.config.apiToken);

  await app.register(systemRoutes(ctx));
  await app.register(orgRoutes(ctx));
  await app.register(taskRoutes(ctx));
  await app.register(observeRoutes(ctx));
  await app.register(routineRoutes(ctx));
  await app.register(webhookRoutes(ctx));
  await app.register(dashboardRoutes());
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}

/** Keeps the raw body (webhook signatures are computed over it) and rejects deep nesting. */
function registerJsonParser(app: FastifyInstance) {
  // JSON only: Fastify's built-in text/plain parser would hand a string to the zod schemas (a 400), not a 415.
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    (req as { rawBody?: string }).rawBody = text;
    if (text.trim() === '') return done(null, undefined);
    if (nestingDepth(text) > MAX_JSON_DEPTH) {
      return done(Object.assign(new Error(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`), { statusCode: 400, code: 'validation_error' }), undefined);
    }
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(Object.assign(new Error(`invalid JSON body: ${(error as Error).message}`), { statusCode: 400, code: 'validation_error' }), undefined);
    }
  });
}

function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') deepest = Math.max(deepest, ++depth);
    else if (ch === '}' || ch === ']') depth--;
  }
  return deepest;
}
