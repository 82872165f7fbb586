import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { withRouteAccess } from './auth.js';

/** Where the API reference page lives; the dashboard's "not built" page links to it. */
export const DOCS_PATH = '/docs';

/**
 * The API reference page: Swagger UI over the document that /openapi.json serves, with every file
 * of it served from this process (no CDN, no validator badge fetched from swagger.io). Public, as
 * /openapi.json is: it describes the API and holds no data; "Try it out" still needs a token.
 */
export function docsRoutes() {
  return withRouteAccess('public', async (app: FastifyInstance) => {
    await app.register(fastifySwaggerUi, {
      routePrefix: DOCS_PATH,
      theme: { title: 'Office Scheduler API' },
      uiConfig: { validatorUrl: null, docExpansion: 'list', deepLinking: true },
    });
  });
}
