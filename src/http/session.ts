/**
 * The session cookie as a credential (see services/sessions.ts): auth.ts asks principalOfSessionCookie
 * when a request brings no bearer token, and the session routes sign in and out.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { UserPrincipal } from '../domain/governance.js';
import { hasCsrfProof, sessionSecretFrom, type Session } from '../domain/sessions.js';
import { ServiceError, forbidden } from '../services/errors.js';
import { SessionService } from '../services/sessions.js';
import type { AppContext } from './context.js';

declare module 'fastify' {
  interface FastifyInstance {
    sessions: SessionService;
  }
  interface FastifyRequest {
    /** The session whose cookie authenticated this request; null when a bearer token (or nothing) did. */
    session: Session | null;
  }
  interface FastifyContextConfig {
    /** GET /api/office/session: answers without a credential (principal null), so the dashboard learns it must sign in without a 401. */
    signInProbe?: boolean;
  }
}

export function registerSessions(app: FastifyInstance, ctx: AppContext, log: Logger): void {
  app.decorate('sessions', new SessionService({ store: ctx.store, clock: ctx.clock, log, apiToken: ctx.config.apiToken, ttlMs: ctx.config.sessionTtlMs }));
  app.decorateRequest('session', null);
}

/**
 * The principal of the request's session cookie, or null when it carries none (or no token is
 * configured, where every local caller is the admin anyway). A cookie that names no live session is a
 * 401 that says to sign in again; a cookie-authenticated write without its CSRF proof is a 403.
 */
export async function principalOfSessionCookie(request: FastifyRequest): Promise<UserPrincipal | null> {
  const secret = sessionSecretFrom(request.headers.cookie);
  if (secret === null || !request.server.sessions.configured) return null;
  const resolved = await request.server.sessions.resolve(secret);
  if (!resolved && request.routeOptions.config?.signInProbe) return null;
  if (!resolved) throw new ServiceError('unauthorized', 'the dashboard session has expired, was signed out, or its token was revoked: sign in again');
  if (!hasCsrfProof(request.method, request.headers['content-type'])) {
    throw forbidden(`a ${request.method} signed in by the session cookie must be sent with Content-Type: application/json (the dashboard sends it; a form on another site cannot)`);
  }
  request.session = resolved.session;
  return resolved.principal;
}
