import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { WebhookBodyError, webhookVariables } from '../../domain/webhookPayload.js';
import { verifyWebhook } from '../../domain/webhookSignature.js';
import { ServiceError, invalid, notFound } from '../../services/errors.js';
import type { AppContext } from '../context.js';
import { toApi } from '../serialize.js';

const Params = z.strictObject({ public_id: z.string().min(1).max(200) });

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
    r.post('/api/routine-triggers/:public_id/fire', { schema: { params: Params } }, async (req, reply) => {
      const trigger = await ctx.store.read((tx) => tx.routines.triggerByPublicId(req.params.public_id));
      if (!trigger || trigger.kind !== 'webhook') throw notFound('webhook trigger', req.params.public_id);
      const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const signed = { authorization: req.headers.authorization, signature256: header(req.headers['x-hub-signature-256']), rawBody };
      if (!verifyWebhook(trigger.signing_mode ?? 'none', trigger.secret, signed)) {
        throw new ServiceError('unauthorized', `bad or missing signature for a ${trigger.signing_mode} webhook trigger`);
      }
      const variables = variablesOf(req.headers['content-type'], rawBody);
      const deliveryId = header(req.headers['x-delivery-id']) ?? header(req.headers['x-github-delivery']) ?? null;
      const result = await ctx.routines.fireWebhook(trigger, variables, deliveryId ? deliveryId.slice(0, 200) : null);
      return reply.code(result.created ? 202 : 200).send({ routine_run: toApi(result.routineRun) });
    });
  };
}
