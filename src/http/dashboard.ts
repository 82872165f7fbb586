import { existsSync, readFileSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { errorBody } from './errors.js';

const DIST = fileURLToPath(new URL('../../dashboard/dist/', import.meta.url));
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.json': 'application/json', '.ico': 'image/x-icon', '.woff2': 'font/woff2',
};

/** Serves the built dashboard from local files: no CDN, nothing fetched at run time. */
export function dashboardRoutes() {
  return async (app: FastifyInstance) => {
    // Hidden from the document: the dashboard's files, not API operations.
    app.get('/*', { schema: { hide: true }, config: { access: 'public' } }, async (req, reply) => {
      const path = (req.params as { '*': string })['*'] ?? '';
      if (path.startsWith('api/')) return reply.code(404).send(errorBody('not_found', `no route GET /${path}`));
      if (typeof (req.query as { token?: unknown }).token === 'string') {
        // Kept for one release: the dashboard trades it for a session cookie, but the URL with the token is in the proxies' logs already.
        req.log.warn({ path: `/${path}` }, '?token= in a dashboard URL is deprecated and goes away in the next release: open the dashboard and sign in instead');
      }
      const file = resolveAsset(path);
      if (!file) {
        return reply.type('text/html; charset=utf-8').send(
          '<!doctype html><title>Office Scheduler</title><h1>Office Scheduler</h1><p>The dashboard is not built. Run <code>npm run build:dashboard</code>. The API is at <a href="/openapi.json">/openapi.json</a>.</p>');
      }
      return reply.type(TYPES[extname(file)] ?? 'application/octet-stream').send(readFileSync(file));
    });
  };
}

/** A file under dist/, or index.html for the single-page app's own routes. */
function resolveAsset(path: string): string | null {
  const candidate = normalize(join(DIST, path));
  if (candidate.startsWith(DIST) && path && existsSync(candidate) && extname(candidate)) return candidate;
  const index = join(DIST, 'index.html');
  return existsSync(index) ? index : null;
}
