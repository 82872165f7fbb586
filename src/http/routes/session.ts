import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { clearedSessionCookie, sessionCookie } from '../../domain/sessions.js';
import { forbidden } from '../../services/errors.js';
import { LIST_ERRORS, NO_CONTENT, OFFICE_SECURITY, WRITE_ERRORS, operation } from '../openapi.js';
import { toApi } from '../serialize.js';

const SessionSchema = z.object({
  signed_in: z.boolean().describe('False only where OFFICE_API_TOKEN is set and this request brought no valid credential: the dashboard shows its sign-in form.'),
  token_id: z.string().nullable().describe('The token this caller acts as: "admin" for OFFICE_API_TOKEN (and for every local caller when none is set), or a named token\'s id.'),
  role: z.enum(['admin', 'member']).nullable(),
  via: z.enum(['session', 'token', 'open']).nullable().describe('How this request was authenticated: the session cookie, a bearer token, or nothing needed (no OFFICE_API_TOKEN is set).'),
  expires_at: z.iso.datetime().nullable().describe('When the session ends; null when the request did not come through a session.'),
}).meta({ id: 'Session', description: 'Who the caller is, and how it signed in.' });

/** The cookie is Secure when the browser reached us over HTTPS, directly or through a TLS-terminating proxy. */
function overHttps(request: FastifyRequest): boolean {
  return request.protocol === 'https' || request.headers['x-forwarded-proto'] === 'https';
}

/**
 * Dashboard sign-in: POST exchanges the bearer token for an HttpOnly,
 * SameSite=Strict session cookie, GET says who is signed in, DELETE signs out.
 */
export function sessionRoutes() {
  return async (app: FastifyInstance) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    const describe = (request: FastifyRequest) => {
      const principal = request.principal as FastifyRequest['principal'] | null;
      if (principal === null) return { signed_in: false, token_id: null, role: null, via: null, expires_at: null };
      if (principal.kind !== 'user') throw forbidden('a run token has no session');
      return toApi({ signed_in: true, token_id: principal.tokenId, role: principal.role, via: request.session ? 'session' : request.credential, expires_at: request.session?.expires_at ?? null });
    };

    r.get('/api/office/session', { schema: operation({ operationId: 'getSession', summary: 'Who is signed in', tag: 'Sessions',
      success: { 200: SessionSchema }, errors: LIST_ERRORS, security: [{}, ...OFFICE_SECURITY],
      description: 'Needs no credential: without one (or with a session that ended) it answers `signed_in: false`, and the dashboard shows its sign-in form. A wrong bearer token is still a 401.' }),
      config: { access: 'read', agentRead: false, signInProbe: true } }, async (req) => describe(req));

    r.post('/api/office/session', { schema: operation({ operationId: 'signIn', summary: 'Sign in: exchange the bearer token for a session cookie', tag: 'Sessions',
      success: { 201: SessionSchema }, errors: WRITE_ERRORS, optionalBody: true,
      description: 'Send the API token (or a named token) as Authorization: Bearer. The answer sets an HttpOnly, SameSite=Strict cookie that the API and the event stream accept until it expires (OFFICE_SESSION_TTL_HOURS), the session is signed out, or the token is revoked. 409 when no OFFICE_API_TOKEN is set: there is nothing to sign in to.' }),
      config: { access: 'member', agentRead: false } }, async (req, reply) => {
      if (req.principal.kind !== 'user') throw forbidden('a run token may not start a session');
      // A session never mints another: that would let a stolen cookie outlive its expiry.
      if (req.session) throw forbidden('already signed in by a session cookie: sign in with the token itself (Authorization: Bearer) to start a new session');
      const { secret, session } = await req.server.sessions.signIn(req.principal);
      req.session = session;
      reply.header('set-cookie', sessionCookie(secret, (session.expires_at - session.created_at) / 1000, overHttps(req)));
      return reply.code(201).send(describe(req));
    });

    r.delete('/api/office/session', { schema: operation({ operationId: 'signOut', summary: 'Sign out: end this session and clear its cookie', tag: 'Sessions',
      success: { 204: NO_CONTENT }, errors: WRITE_ERRORS }), config: { access: 'member', agentRead: false } }, async (req, reply) => {
      if (req.session) await req.server.sessions.signOut(req.session);
      return reply.code(204).header('set-cookie', clearedSessionCookie(overHttps(req))).send();
    });
  };
}
