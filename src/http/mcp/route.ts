/**
 * `/mcp`: the agents' MCP server over Streamable HTTP, authenticated by the run's OFFICE_RUN_TOKEN.
 *
 * Stateless: each POST is a whole exchange, answered as JSON, with a server made for it. The token
 * is the only state a call needs and it is in every request, so any replica answers any call (no
 * sticky sessions behind a load balancer, nothing to expire or to lose in a restart), and the tools
 * never push anything to a client unasked, which is the one thing a session would buy.
 *
 * The tools call the API in process (`inject`) with the same bearer, so every rule of the run
 * token's scope applies as it does to the agent's own HTTP calls.
 *
 * The MCP SDK (and the tools built on it) is imported by the first call, not at boot: it is about
 * 10 MB of memory, which a scheduler whose agents never use /mcp would hold for nothing.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MCP_PATH } from '../../domain/agentPrograms.js';
import { ServiceError } from '../../services/errors.js';
import { bearerOf, liveRunOfToken } from '../auth.js';
import type { AppContext } from '../context.js';
import type { OfficeApi } from './tools.js';

/** The API as the run sees it: in process, with the run's own bearer token. */
function inProcessApi(app: FastifyInstance, token: string): OfficeApi {
  return {
    async call(method, url, body) {
      const response = await app.inject({
        method, url, headers: { authorization: `Bearer ${token}` },
        ...(body !== undefined ? { payload: body as object } : {}),
      });
      return { status: response.statusCode, body: response.body ? response.json() : null };
    },
  };
}

function webRequestOf(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const each of value) headers.append(name, each);
  }
  return new Request(`http://${request.host}${request.url}`, { method: request.method, headers });
}

async function sendWebResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => void reply.header(name, value));
  return reply.send(response.body ? await response.text() : undefined);
}

export function mcpRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    // Outside /api/office/, so the route checks its own credential: a live run token, and nothing else.
    app.route({
      method: 'POST', url: MCP_PATH, schema: { hide: true }, config: { access: 'public' },
      handler: async (request, reply) => {
        const token = bearerOf(request);
        const run = token ? await liveRunOfToken(ctx.store, token) : null;
        if (!token || !run) {
          reply.header('www-authenticate', 'Bearer');
          throw new ServiceError('unauthorized', token ? 'invalid or expired run token: the MCP server answers only while the run is running' : 'missing bearer token: send Authorization: Bearer <OFFICE_RUN_TOKEN>');
        }
        const [{ WebStandardStreamableHTTPServerTransport }, { createOfficeMcpServer }] = await Promise.all([
          import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'), import('./tools.js'),
        ]);
        const server = createOfficeMcpServer(inProcessApi(app, token), {
          runId: run.id, agentId: run.agent_id, workspaceId: run.workspace_id, taskId: run.task_id,
        });
        // No session id: stateless.
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        try {
          await server.connect(transport);
          return await sendWebResponse(reply, await transport.handleRequest(webRequestOf(request), { parsedBody: request.body }));
        } finally {
          await server.close();
        }
      },
    });
    // Stateless: no stream of server-sent news to open (GET), no session to end (DELETE).
    app.route({
      method: ['GET', 'DELETE'], url: MCP_PATH, schema: { hide: true }, config: { access: 'public' },
      handler: async (_request, reply) => reply.code(405).header('allow', 'POST')
        .send({ error: { code: 'bad_request', message: 'the MCP server is stateless: send each request as a POST' } }),
    });
  };
}
