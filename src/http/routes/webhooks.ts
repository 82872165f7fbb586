import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { WebhookBodyError, webhookVariables } from '../../domain/webhookPayload.js';
import { verifyWebhook } from '../../domain/webhookSignature.js';
import { ServiceError, invalid, notFound } from '../../services/errors.js';
import { RoutineRunResponseSchema } from '../../domain/responseSchemas.js';
import type { AppContext } from '../context.js';
import { WEBHOOK_SECURITY, operation } from '../openapi.js';
import { toApi } from '../serialize.js';

const Params = z.strictObject({ public_id: z.string().min(1).max(200) });
/** The signature headers are documented as the route's security schemes (openapi.ts); these two only as headers. */
const DeliveryHeaders = z.looseObject({
  'x-delivery-id': z.string().optional().describe('The delivery\'s id: a repeat within the idempotency window answers 200 with the first delivery\'s routine run and fires nothing.'),
  'x-github-delivery': z.string().optional().describe('GitHub\'s name for X-Delivery-Id, used when that one is absent.'),
});
const AnyBody = z.unknown().describe(
  'Optional, any content type; the signature covers its raw bytes. A JSON object\'s top-level fields become the routine\'s variables; ' +
  'an application/x-www-form-urlencoded body with a `payload` field (GitHub\'s default) is that field parsed as JSON; any other body is the variable `body`, as text.');

const fireWebhookOperation = operation({
  operationId: 'fireRoutineWebhook', summary: 'Deliver a webhook to a routine trigger', tag: 'Webhooks', security: WEBHOOK_SECURITY, optionalBody: true,
  description: 'Authenticated with the trigger\'s own secret, by its signing mode: none, `bearer` (Authorization: Bearer <secret>) or ' +
    '`hmac_sha256` (X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, raw body)>). The signature is checked on the raw body before it is parsed.',
  success: {
    202: { description: 'The first delivery: the routine fired.', schema: RoutineRunResponseSchema },
    200: { description: 'A repeated delivery id: the first delivery\'s routine run; nothing fired.', schema: RoutineRunResponseSchema },
  },
  errors: [400, 401, 404, 409, 413, 421, 500, 503],
});

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Every body reaches the route as the bytes it arrived as (up to the body limit): it is verified before it is decoded. */
function keepRawBodies(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
}

function variablesOf(contentType: string | undefined, raw: Buffer): Record<string, unknown> {
  try {
    return webhookVariables(contentType, raw);
  } catch (error) {
    if (error instanceof WebhookBodyError) throw invalid('body', error.message);
    throw error;
  }
}

/**
 * The webhook fire: verified with the trigger's own secret (not the API token) over the raw body,
 * then decoded by content type (webhookVariables), idempotent on the delivery id.
 */
export function webhookRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    // This plugin's own context: the JSON-only parsers of the rest of the API stay as they are.
    keepRawBodies(app);
    const r = app.withTypeProvider<ZodTypeProvider>();
    r.post('/api/routine-triggers/:public_id/fire', { schema: {
      ...fireWebhookOperation, consumes: ['*/*'], params: Params, headers: DeliveryHeaders, body: AnyBody }, config: { access: 'public' } }, async (req, reply) => {
      const trigger = await ctx.store.query((tx) => tx.routines.triggerByPublicId(req.params.public_id));
      if (!trigger || trigger.kind !== 'webhook') throw notFound('webhook trigger', req.params.public_id);
      const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const signed = { authorization: req.headers.authorization, signature256: header(req.raw.headers['x-hub-signature-256']), rawBody };
      if (!verifyWebhook(trigger.signing_mode ?? 'none', trigger.secret, signed)) {
        throw new ServiceError('unauthorized', `bad or missing signature for a ${trigger.signing_mode} webhook trigger`);
      }
      const variables = variablesOf(req.headers['content-type'], rawBody);
      const deliveryId = header(req.headers['x-delivery-id']) ?? header(req.headers['x-github-delivery']) ?? null;
      const result = await ctx.routines.firing.fireWebhook(trigger, variables, deliveryId ? deliveryId.slice(0, 200) : null);
      return reply.code(result.created ? 202 : 200).send({ routine_run: toApi(result.routineRun) });
    });
  };
}
