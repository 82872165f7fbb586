import fastifySwagger from '@fastify/swagger';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { JsonTextError, assertJsonDepth, jsonRefusalReason } from '../domain/jsonText.js';
import { registerAuth, requireAccessRules } from './auth.js';
import type { AppContext } from './context.js';
import { errorBody, handleError } from './errors.js';
import { registerHostGuard } from './hostGuard.js';
import { registerSessions } from './session.js';
import { swaggerOptions } from './openapi.js';
import { orgRoutes } from './routes/org.js';
import { observeRoutes } from './routes/observe.js';
import { routineRoutes } from './routes/routines.js';
import { tokenRoutes } from './routes/tokens.js';
import { statsRoutes } from './routes/stats.js';
import { sessionRoutes } from './routes/session.js';
import { systemRoutes } from './routes/system.js';
import { taskRoutes } from './routes/tasks.js';
import { mcpRoutes } from './mcp/route.js';
import { webhookRoutes } from './routes/webhooks.js';
import { dashboardRoutes } from './dashboard.js';
import { registerCompression } from './compression.js';
import { docsRoutes } from './docs.js';

export async function buildApp(ctx: AppContext, logger: Logger): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({ loggerInstance: logger as FastifyBaseLogger, bodyLimit: ctx.config.bodyLimitBytes,
    // Every decision is logged by the services; per-request lines would only drown them.
    logController: new LogController({ disableRequestLogging: true }),
    // The server closes after the sessions drained: an event stream or a client that stopped reading
    // a response must not hold the shutdown (close would wait on its connection for ever).
    forceCloseConnections: true,
    // Router-level refusals (a malformed URL, a path parameter over the length limit) get the same envelope.
    frameworkErrors: handleError,
    // Ids may be up to 200 characters (schemas.ts); the router's default of 100 would answer 414.
    routerOptions: { maxParamLength: 256 },
  });
  app.setValidatorCompiler(validatorCompiler);
  // Responses go out exactly as the handlers built them. The provider's serializer would re-encode
  // them through the response schemas: it drops any field a schema does not declare, and answers
  // 500 for a response that does not match. The document is checked against the real responses by
  // the integration suite instead (test/helpers/contract.ts).
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((req, reply) => reply.code(404).send(errorBody('not_found', `no route ${req.method} ${req.url.split('?')[0]}`)));
  registerJsonParser(app);

  await app.register(fastifySwagger, swaggerOptions);
  await registerCompression(app);
  // Before authentication: a foreign Host is refused whoever asks.
  registerHostGuard(app, ctx.config.host, ctx.config.allowedHosts);
  registerSessions(app, ctx, logger);
  registerAuth(app, ctx.store, ctx.config.apiToken);
  requireAccessRules(app);

  await app.register(systemRoutes(ctx));
  await app.register(orgRoutes(ctx));
  await app.register(taskRoutes(ctx));
  await app.register(observeRoutes(ctx));
  await app.register(statsRoutes(ctx));
  await app.register(routineRoutes(ctx));
  await app.register(tokenRoutes(ctx, logger));
  await app.register(webhookRoutes(ctx));
  await app.register(mcpRoutes(ctx));
  await app.register(sessionRoutes());
  await app.register(docsRoutes());
  await app.register(dashboardRoutes());
  // The document does not describe itself.
  app.get('/openapi.json', { schema: { hide: true }, config: { access: 'public' } }, async () => app.swagger());
  return app;
}

/**
 * JSON only, with deep nesting refused, parsed by Fastify's own parser: secure-json-parse, which
 * refuses a `__proto__` key and a `constructor.prototype` (400), so no body can reach an object's
 * prototype. The webhook route has its own parser: it needs the raw bytes.
 */
function registerJsonParser(app: FastifyInstance) {
  // JSON only: Fastify's built-in text/plain parser would hand a string to the zod schemas (a 400), not a 415.
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      assertJsonDepth(text);
    } catch (error) {
      return done(error instanceof JsonTextError ? invalidBody(error.message) : error as Error, undefined);
    }
    parseJson(req, text, (error, value) => done(error ? invalidBody(jsonRefusalReason(text)) : null, value));
  });
}

function invalidBody(message: string): Error {
  return Object.assign(new Error(message), { statusCode: 400, code: 'validation_error' });
}
