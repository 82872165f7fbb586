import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { verifyWebhook } from '../../domain/webhookSignature.js';
import { ServiceError, conflict, invalid, notFound } from '../../services/errors.js';
import type { AppContext } from '../context.js';
import { toApi } from '../serialize.js';

const Params = z.strictObject({ public_id: z.string().min(1).max(200) });

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The webhook fire: verified with the trigger's own secret (not the API token), idempotent on the
 * delivery id. The JSON body's top-level fields become the routine's variables.
 */
export function webhookRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    r.post('/api/routine-triggers/:public_id/fire', { schema: { params: Params } }, async (req, reply) => {
      const trigger = await ctx.store.read((tx) => tx.routines.triggerByPublicId(req.params.public_id));
      if (!trigger || trigger.kind !== 'webhook') throw notFound('webhook trigger', req.params.public_id);
      const rawBody = (req as { rawBody?: string }).rawBody ?? '';
      const signed = { authorization: req.headers.authorization, signature256: header(req.headers['x-hub-signature-256']), rawBody };
      if (!verifyWebhook(trigger.signing_mode ?? 'none', trigger.secret, signed)) {
        throw new ServiceError('unauthorized', `bad or missing signature for a ${trigger.signing_mode} webhook trigger`);
      }
      const body = req.body;
      if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
        throw invalid('body', 'expected a JSON object whose top-level fields become variables');
      }
      const deliveryId = header(req.headers['x-delivery-id']) ?? header(req.headers['x-github-delivery']) ?? null;
      const result = await ctx.store.transaction(async (tx) => {
        const routine = await tx.routines.get(trigger.routine_id);
        if (!routine) throw notFound('routine', trigger.routine_id);
        const current = (await tx.routines.getTrigger(trigger.id))!;
        if (!current.enabled) throw conflict(`webhook trigger '${trigger.public_id}' is disabled`);
        return ctx.routines.fireIn(tx, routine, {
          source: 'webhook', triggerId: trigger.id, variables: (body ?? {}) as Record<string, unknown>,
          deliveryId: deliveryId ? deliveryId.slice(0, 200) : null,
        });
      });
      return reply.code(result.created ? 202 : 200).send({ routine_run: toApi(result.routineRun) });
    });
  };
}
