import { safeEqual } from '../domain/webhookSignature.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hashRunToken } from '../actors/prepare.js';
import type { Store } from '../persistence/store.js';
import { ServiceError, forbidden } from '../services/errors.js';

export type Principal =
  | { kind: 'user' }
  | { kind: 'agent'; agentId: string; workspaceId: string; runId: string };

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    /** Routes an agent may call with its run token; every other route answers 403 to one. */
    agentAllowed?: boolean;
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

function bearerOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) {
    const token = request.routeOptions.config?.queryToken ? (request.query as { token?: unknown } | undefined)?.token : undefined;
    return typeof token === 'string' && token ? token : null;
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : '';
}

/**
 * /api/office/* takes the API token (a person) or a run token (an agent, while its run runs).
 * A run token is valid only while its run is running; afterwards it is a 401 like any bad token.
 */
export function registerAuth(app: FastifyInstance, store: Store, apiToken: string | undefined): void {
  app.decorateRequest('principal', null as never);
  app.addHook('onRequest', async (request) => {
    if (!isOfficeApi(request)) return;
    const bearer = bearerOf(request);
    if (bearer !== null && apiToken && safeEqual(bearer, apiToken)) {
      request.principal = { kind: 'user' };
      return;
    }
    if (bearer) {
      const run = await store.read((tx) => tx.runs.byTokenHash(hashRunToken(bearer)));
      if (run && run.status === 'running') {
        request.principal = { kind: 'agent', agentId: run.agent_id, workspaceId: run.workspace_id, runId: run.id };
        if (!request.routeOptions.config?.agentAllowed) throw forbidden('a run token may only comment, move its own tasks, create subtasks and wake its own agent');
        return;
      }
      throw new ServiceError('unauthorized', 'invalid or expired bearer token');
    }
    if (apiToken) throw new ServiceError('unauthorized', 'missing bearer token: set Authorization: Bearer <OFFICE_API_TOKEN>');
    request.principal = { kind: 'user' };
  });
}
