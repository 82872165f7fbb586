import { statSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { DOCS_PATH } from './docs.js';
import { errorBody } from './errors.js';

const DIST = fileURLToPath(new URL('../../dashboard/dist/', import.meta.url));
/** Vite's output folder for files whose names carry a hash of their content. */
const HASHED_ASSETS = 'assets/';
/**
 * A hashed file never changes under its name: a new build names it anew. A year is the longest
 * max-age HTTP caches honour (RFC 9111), and `immutable` spares the revalidation on reload.
 */
const HASHED_ASSET_CACHE = { cacheControl: true, maxAge: 365 * 24 * 3600 * 1000, immutable: true };
/** index.html (and any unhashed file) names the current build's assets: cached, but revalidated (its ETag) on every use. */
const REVALIDATE = 'no-cache';
const NOT_BUILT_PAGE = '<!doctype html><html lang="en"><title>Office Scheduler</title><h1>Office Scheduler</h1>'
  + '<p>The dashboard is not built. Run <code>npm run build:dashboard</code>. The API is at <a href="/openapi.json">/openapi.json</a>'
  + ` (reference: <a href="${DOCS_PATH}">${DOCS_PATH}</a>).</p></html>`;

/**
 * Serves the built dashboard from local files through @fastify/static (ETag, Last-Modified, ranges,
 * conditional requests): no CDN, nothing fetched at run time. Hashed assets are cached for good;
 * index.html answers every client-side route of the single-page app and is always revalidated, so
 * a new build is picked up on the next load.
 */
export function dashboardRoutes(dist = DIST) {
  return async (app: FastifyInstance) => {
    // Only its sendFile: the one route below decides what a path is (a file, the app's index, or an API 404).
    await app.register(fastifyStatic, { root: dist, serve: false, cacheControl: false, dotfiles: 'ignore' });
    // Hidden from the document: the dashboard's files, not API operations.
    app.get('/*', { schema: { hide: true }, config: { access: 'public' } }, async (req, reply) => {
      const path = (req.params as { '*': string })['*'] ?? '';
      if (path.startsWith('api/')) return reply.code(404).send(errorBody('not_found', `no route GET /${path}`));
      if (typeof (req.query as { token?: unknown }).token === 'string') {
        // Kept for one release: the dashboard trades it for a session cookie, but the URL with the token is in the proxies' logs already.
        req.log.warn({ path: `/${path}` }, '?token= in a dashboard URL is deprecated and goes away in the next release: open the dashboard and sign in instead');
      }
      if (isFileUnder(dist, path)) {
        if (path.startsWith(HASHED_ASSETS)) return reply.sendFile(path, HASHED_ASSET_CACHE);
        return reply.header('cache-control', REVALIDATE).sendFile(path);
      }
      // A hashed asset that is not there is an old build's: index.html in its place would be read as a script.
      if (path.startsWith(HASHED_ASSETS)) return reply.code(404).send(errorBody('not_found', `no file /${path} in this build of the dashboard`));
      if (!isFileUnder(dist, 'index.html')) return reply.type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
      return reply.header('cache-control', REVALIDATE).sendFile('index.html');
    });
  };
}

/** Whether `path` names a regular file inside `dist` (never outside it, whatever `..` it holds). */
function isFileUnder(dist: string, path: string): boolean {
  if (!path) return false;
  const candidate = normalize(join(dist, path));
  if (!candidate.startsWith(dist)) return false;
  try {
    return statSync(candidate).isFile();
  } catch {
    return false;
  }
}
