import { personOfSecret } from '../services/tokens.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isRouteAccess, personMay, type RouteAccess } from '../domain/access.js';
import { hashRunToken } from '../domain/runTokens.js';
import { scopeReadForRunToken, type RecordKind, type RunTokenScope } from '../domain/runTokenScope.js';
import type { Run } from '../domain/types.js';
import type { Reads, Store } from '../persistence/store.js';
import { ServiceError, forbidden } from '../services/errors.js';
import { principalOfSessionCookie } from './session.js';

export type { Principal } from '../domain/governance.js';
import { BOOTSTRAP_ADMIN, type Principal } from '../domain/governance.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
    /** What authenticated the request: the session cookie, a bearer token, or nothing (no OFFICE_API_TOKEN: the open mode). */
    credential: 'session' | 'token' | 'open' | null;
  }
  interface FastifyContextConfig {
    /**
     * Who may call the route (domain/access.ts, from API.md's "Trust boundaries"). Every route
     * declares one; registering a route without it fails at start (requireAccessRules).
     */
    access?: RouteAccess;
    /** Writes an agent may make with its run token; every other write answers 403 to one. */
    agentAllowed?: boolean;
    /**
     * How a read (GET) judges a run token (runTokenScope.ts): by the records it returns (`records`,
     * the default; `workspaces`; `runs`), by the workspace of the resource its `:id` names
     * (`{ ownerOf }`, for records that carry no workspace), or not at all (`false`: a 403).
     */
    agentRead?: RecordKind | { ownerOf: 'agent' | 'routine' | 'routine_trigger' } | false;
    /** Routes that also take the API token as `?token=`: the event stream, since EventSource cannot send headers. */
    queryToken?: boolean;
  }
}

/**
 * The matched route and the decoded path both count: the router decodes %-escapes that the raw URL
 * still carries, and an unknown /api/office/ path must answer 401, not reveal the route table.
 */
function isOfficeApi(request: FastifyRequest): boolean {
  if (request.routeOptions.url?.startsWith('/api/office/')) return true;
  const path = request.url.split('?')[0] ?? '';
  try {
    return decodeURIComponent(path).startsWith('/api/office/');
  } catch {
    return path.startsWith('/api/office/');
  }
}

export function bearerOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) {
    const token = request.routeOptions.config?.queryToken ? (request.query as { token?: unknown } | undefined)?.token : undefined;
    if (typeof token !== 'string' || !token) return null;
    // Kept for one release: proxies and access logs record URLs, and with them the token.
    request.log.warn({ route: request.routeOptions.url }, '?token= in a URL is deprecated and goes away in the next release: sign in to the dashboard (a session cookie) or send Authorization: Bearer');
    return token;
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : '';
}

/**
 * /api/office/* takes a person's token (OFFICE_API_TOKEN, the admin, or a named token with its role)
 * or a run token (an agent, while its run runs). A revoked named token is a 401.
 * A run token is valid only while its run is running; afterwards it is a 401 like any bad token.
 */
export function registerAuth(app: FastifyInstance, store: Store, apiToken: string | undefined): void {
  app.decorateRequest('principal', null as never);
  app.decorateRequest('credential', null);
  app.addHook('onRequest', async (request) => {
    if (!isOfficeApi(request)) return;
    const bearer = bearerOf(request);
    const signedIn = bearer === null ? await principalOfSessionCookie(request) : null;
    if (signedIn) {
      request.principal = signedIn;
      request.credential = 'session';
      return;
    }
    if (bearer) {
      // A named token acts as itself even where no OFFICE_API_TOKEN is set: a member stays a member.
      const person = await personOfSecret(store, apiToken, bearer);
      if (person && 'revoked' in person) {
        throw new ServiceError('unauthorized', `API token ${person.revoked.id} ('${person.revoked.name}') was revoked; ask an admin for a new one`);
      }
      if (person) {
        request.principal = person.principal;
        request.credential = 'token';
        return;
      }
      const run = await liveRunOfToken(store, bearer);
      if (run) {
        request.principal = { kind: 'agent', agentId: run.agent_id, workspaceId: run.workspace_id, runId: run.id };
        request.credential = 'token';
        if (isRead(request)) {
          if (request.routeOptions.config?.agentRead === false) throw forbidden(`a run token may not read ${request.routeOptions.url}`);
        } else if (!request.routeOptions.config?.agentAllowed) {
          throw forbidden('a run token may only read its own workspace, comment, move its own tasks, create subtasks and wake its own agent');
        }
        return;
      }
      throw new ServiceError('unauthorized', 'invalid or expired bearer token');
    }
    // GET /api/office/session answers "nobody yet" itself: the dashboard asks it before anyone signed in.
    if (apiToken && request.routeOptions.config?.signInProbe) return;
    if (apiToken) throw new ServiceError('unauthorized', 'missing bearer token: set Authorization: Bearer <OFFICE_API_TOKEN>');
    request.principal = BOOTSTRAP_ADMIN;
    request.credential = 'open';
  });
  registerRunTokenReadScope(app, store);
  registerPersonAccess(app);
}

/** The run a run token belongs to, while that run is running; null for any other secret, and once the run ended. */
export async function liveRunOfToken(store: Store, token: string): Promise<Run | null> {
  const run = await store.query((tx) => tx.runs.byTokenHash(hashRunToken(token)));
  return run && run.status === 'running' ? run : null;
}

/**
 * Every route says who may call it: a route added without a rule fails the start, instead of
 * answering everyone. Call before any route is registered.
 */
export function requireAccessRules(app: FastifyInstance): void {
  app.addHook('onRoute', function declareAccess(route) {
    const access = route.config?.access ?? (this as ScopedAccess)[SCOPED_ACCESS];
    if (!isRouteAccess(access)) {
      const method = Array.isArray(route.method) ? route.method.join('|') : route.method;
      throw new Error(`route ${method} ${route.url} declares no access rule: add config: { access: ... } beside it (src/domain/access.ts)`);
    }
    route.config = { ...route.config, access };
  });
}

const SCOPED_ACCESS = Symbol('office.scopedAccess');
type ScopedAccess = { [SCOPED_ACCESS]?: RouteAccess };

/**
 * A plugin whose routes are not written here (a library's, such as the API reference page), so
 * cannot declare their access beside them: every route it adds gets `access`.
 */
export function withRouteAccess(access: RouteAccess, plugin: (app: FastifyInstance) => Promise<void>) {
  return async (app: FastifyInstance) => {
    app.decorate(SCOPED_ACCESS, access);
    await plugin(app);
  };
}

/**
 * A person's role against the route's declared level. Before validation, so that a member's request
 * for an admin's act is a 403 whatever its body; after parsing, so that an executor in a body is seen.
 */
function registerPersonAccess(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const principal = request.principal as FastifyRequest['principal'] | null;
    // No level: the not-found handler (every route has one, requireAccessRules), whose 404 reveals nothing.
    const access = request.routeOptions.config?.access;
    if (principal?.kind !== 'user' || access === undefined) return;
    const permission = personMay(principal, access, request.body);
    if (!permission.allowed) throw forbidden(permission.reason);
  });
}

function isRead(request: FastifyRequest): boolean {
  return request.method === 'GET' || request.method === 'HEAD';
}

function agentReader(request: FastifyRequest): RunTokenScope | null {
  const principal = request.principal;
  return principal?.kind === 'agent' && isRead(request) ? { agentId: principal.agentId, workspaceId: principal.workspaceId } : null;
}

/** A run token reads only its own workspace, and no other agent's runs (API.md, "Run token"). */
function registerRunTokenReadScope(app: FastifyInstance, store: Store): void {
  // Records that carry no workspace (summaries, routine runs): the resource the path names decides, before the handler runs.
  app.addHook('preHandler', async (request) => {
    const scope = agentReader(request);
    const rule = request.routeOptions.config?.agentRead;
    if (!scope || typeof rule !== 'object' || !rule) return;
    const id = (request.params as { id?: string }).id ?? '';
    const workspaceId = await store.query((tx) => workspaceOfResource(tx, rule.ownerOf, id));
    // An unknown id is the handler's 404; only a resource of another workspace is refused here.
    if (workspaceId !== undefined && workspaceId !== scope.workspaceId) throw forbidden('a run token may read only its own workspace');
  });
  app.addHook('preSerialization', async (request, reply, payload) => {
    const scope = agentReader(request);
    const rule = request.routeOptions.config?.agentRead ?? 'records';
    if (!scope || typeof rule === 'object' || reply.statusCode >= 300) return payload;
    const scoped = scopeReadForRunToken(payload, scope, rule === false ? 'records' : rule);
    if ('refused' in scoped) throw forbidden(scoped.refused);
    return scoped.payload;
  });
}

async function workspaceOfResource(tx: Reads, kind: 'agent' | 'routine' | 'routine_trigger', id: string): Promise<string | undefined> {
  if (kind === 'agent') return (await tx.agents.get(id))?.workspace_id;
  const routineId = kind === 'routine' ? id : (await tx.routines.getTrigger(id))?.routine_id;
  return routineId === undefined ? undefined : (await tx.routines.get(routineId))?.workspace_id;
}
