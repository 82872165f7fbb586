import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Id } from '../../domain/schemas.js';
import { ApiTokenSchema, CreateTokenBody, CreatedApiTokenSchema } from '../../domain/tokenSchemas.js';
import { TokenService } from '../../services/tokens.js';
import type { AppContext } from '../context.js';
import { LIST_ERRORS, NO_CONTENT, WRITE_ERRORS, operation } from '../openapi.js';
import { toApi } from '../serialize.js';

const IdParams = z.strictObject({ id: Id });
const ADMIN_ONLY = 'Admin only: a member token gets a 403.';

export function tokenRoutes(ctx: AppContext, log: Logger) {
  const tokens = new TokenService({ store: ctx.store, clock: ctx.clock, config: ctx.config, log }, ctx.routines.catalogue, ctx.wakeups, ctx.runCancels);
  return async (app: FastifyInstance) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post('/api/office/tokens', { schema: {
      ...operation({ operationId: 'createApiToken', summary: 'Create a named API token with a role', tag: 'Tokens', success: { 201: CreatedApiTokenSchema }, errors: WRITE_ERRORS,
        description: `${ADMIN_ONLY} The secret (\`token\`) is shown only in this response; the server keeps only its hash. Named tokens work whether or not OFFICE_API_TOKEN is set: a request that brings one acts as that token (a member stays a member), and a request with no token is the admin only when no OFFICE_API_TOKEN is set.` }),
      body: CreateTokenBody }, config: { access: 'admin' } }, async (req, reply) =>
      reply.code(201).send(toApi(await tokens.create(req.principal, req.body))));
    r.get('/api/office/tokens', { schema: {
      ...operation({ operationId: 'listApiTokens', summary: 'List the API tokens, revoked ones too, without their secrets', tag: 'Tokens', success: { 200: z.array(ApiTokenSchema) }, errors: LIST_ERRORS,
        description: ADMIN_ONLY }) }, config: { access: 'admin', agentRead: false } }, async (req) =>
      toApi(await tokens.list(req.principal)));
    r.delete('/api/office/tokens/:id', { schema: {
      ...operation({ operationId: 'revokeApiToken', summary: 'Revoke an API token', tag: 'Tokens', success: { 204: NO_CONTENT }, errors: WRITE_ERRORS,
        description: `${ADMIN_ONLY} From then on the token is a 401. The active routines it owns are paused with \`paused_reason: "owner's token was revoked"\` (one routine_paused activity entry each) until an admin gives them a new owner with PATCH owner_id, which resumes them. The queued and scheduled wakeups done on its behalf end \`cancelled\` with \`cancel_reason: "owner_revoked"\`, and their running runs are stopped (run \`status: "cancelled"\`), each with an activity entry. Revoking a revoked token changes nothing.` }),
      params: IdParams }, config: { access: 'admin' } }, async (req, reply) => {
      await tokens.revoke(req.principal, req.params.id);
      return reply.code(204).send();
    });
  };
}
