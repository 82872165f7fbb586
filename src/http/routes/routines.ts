import type { FastifyInstance } from 'fastify';
import { pageRead } from '../../domain/pagination.js';
import { sendPage } from '../pages.js';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { nextFireTimes } from '../../domain/cron.js';
import { CreateRoutineBody, FireRoutineBody, Id, PatchRoutineBody, PatchTriggerBody, PreviewQuery, RoutineListQuery, RoutineRunListQuery, TriggerBody } from '../../domain/schemas.js';
import type { Routine, RoutineTrigger } from '../../domain/routines.js';
import { actorFieldsOf } from '../../domain/governance.js';
import { invalid } from '../../services/errors.js';
import {
  RoutineListItemSchema, RoutineRunResponseSchema, RoutineRunSchema, RoutineSchema, RoutineTriggerSchema, TriggerPreviewSchema,
} from '../../domain/responseSchemas.js';
import type { AppContext } from '../context.js';
import { LIST_ERRORS, NO_CONTENT, READ_ERRORS, WRITE_ERRORS, operation } from '../openapi.js';
import { toApi } from '../serialize.js';
import { throwNotFound } from './org.js';
import { ownerOfNewRoutine, requireRoutineManager, type ManagedResource } from '../routineOwners.js';

const IdParams = z.strictObject({ id: Id });
const RECENT_RUNS = 20;

/** The secret is shown once, in the response that created it. */
export function triggerView(trigger: RoutineTrigger, revealSecret = false) {
  const { secret, ...rest } = trigger;
  return toApi({
    ...rest,
    ...(trigger.kind === 'webhook' ? { url: `/api/routine-triggers/${trigger.public_id}/fire`, has_secret: secret !== null } : {}),
    ...(revealSecret && secret ? { secret } : {}),
  });
}

export function routineRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    // A member writes only to the routines it owns (governance.ts); an admin to any.
    const managerOf = (resource: ManagedResource) => requireRoutineManager(ctx.store, resource);

    r.get('/api/office/routines', { schema: {
      ...operation({ operationId: 'listRoutines', summary: 'List routines, each with its triggers and its last run', tag: 'Routines', success: { 200: z.array(RoutineListItemSchema) }, errors: LIST_ERRORS, paginated: true }),
      querystring: RoutineListQuery }, config: { access: 'read' } }, async (req, reply) =>
      ctx.store.query(async (tx) => {
        const routines = sendPage(req, reply, 'routines', await tx.routines.list({ workspace_id: req.query.workspace_id }, pageRead('routines', req.query)));
        return Promise.all(routines.map(async (routine) => ({
          ...toApi(routine),
          triggers: (await tx.routines.triggersOf(routine.id)).map((t) => triggerView(t)),
          last_run: toApi((await tx.routines.runsOf(routine.id, 1))[0] ?? null),
        })));
      }));
    r.post('/api/office/routines', { schema: {
      ...operation({ operationId: 'createRoutine', summary: 'Create a routine with its triggers', tag: 'Routines', success: { 201: RoutineSchema }, errors: WRITE_ERRORS,
        description: 'A webhook trigger created without a secret gets a generated one, shown only in this response. The routine\'s `owner_id` is the id of the token that creates it (`"admin"` for OFFICE_API_TOKEN, or when no token is configured); only an admin may set `owner_id` in the body: a member that names any owner but itself gets a 403, and nothing is created.' }),
      body: CreateRoutineBody }, config: { access: 'member' } }, async (req, reply) => {
      const { routine, triggers } = await ctx.routines.catalogue.create({ ...req.body, owner_id: ownerOfNewRoutine(req, req.body.owner_id) });
      return reply.code(201).send({ ...toApi(routine), triggers: triggers.map((t) => triggerView(t, true)), recent_runs: [] });
    });
    r.get('/api/office/routines/:id', { schema: {
      ...operation({ operationId: 'getRoutine', summary: 'Read a routine with its triggers and recent runs', tag: 'Routines', success: { 200: RoutineSchema }, errors: READ_ERRORS }),
      params: IdParams }, config: { access: 'read' } }, async (req) => routineDetail(ctx, req.params.id));
    r.patch('/api/office/routines/:id', { schema: {
      ...operation({ operationId: 'updateRoutine', summary: 'Change, pause or archive a routine', tag: 'Routines', success: { 200: RoutineSchema }, errors: WRITE_ERRORS,
        description: 'A member may change only the routines it owns (403 with the reason otherwise), and may not give one another owner. An admin may set `owner_id`: a routine paused because its owner\'s token was revoked (`paused_reason: "owner\'s token was revoked"`) resumes when an admin gives it a new owner, unless the same request sets `status`. Setting such a routine `active` without a new owner, or naming a revoked token as owner, is a 409.' }),
      params: IdParams, body: PatchRoutineBody }, config: { access: 'owner' }, preHandler: managerOf('routine') }, async (req) => {
      await ctx.routines.catalogue.update(req.params.id, req.body, actorFieldsOf(req.principal));
      return routineDetail(ctx, req.params.id);
    });
    r.delete('/api/office/routines/:id', { schema: {
      ...operation({ operationId: 'deleteRoutine', summary: 'Archive a routine', tag: 'Routines', success: { 204: NO_CONTENT }, errors: WRITE_ERRORS,
        description: 'The routine leaves the lists and its triggers stop; it can still be read, with `status: "archived"`, and its runs listed.' }),
      params: IdParams }, config: { access: 'owner' }, preHandler: managerOf('routine') }, async (req, reply) => {
      await ctx.routines.catalogue.remove(req.params.id, actorFieldsOf(req.principal));
      return reply.code(204).send();
    });
    r.get('/api/office/routines/:id/runs', { schema: {
      ...operation({ operationId: 'listRoutineRuns', summary: 'List a routine\'s runs, newest first', tag: 'Routines', success: { 200: z.array(RoutineRunSchema) }, errors: READ_ERRORS, paginated: true }),
      params: IdParams, querystring: RoutineRunListQuery }, config: { access: 'read', agentRead: { ownerOf: 'routine' } } }, async (req, reply) =>
      ctx.store.query(async (tx) => {
        if (!(await tx.routines.get(req.params.id))) throwNotFound('routine', req.params.id);
        const { limit, after } = pageRead('routine_runs', req.query);
        return toApi(sendPage(req, reply, 'routine_runs', await tx.routines.runsOf(req.params.id, limit, after)));
      }));
    r.post('/api/office/routines/:id/fire', { schema: {
      ...operation({ operationId: 'fireRoutine', summary: 'Fire a routine by hand', tag: 'Routines', success: { 202: RoutineRunResponseSchema }, errors: WRITE_ERRORS, optionalBody: true,
        description: 'The body may be left out. A required variable that is missing is a 400 naming it.' }),
      params: IdParams, body: FireRoutineBody.nullish() }, config: { access: 'owner' }, preHandler: managerOf('routine') }, async (req, reply) => {
      // A manual fire is attended, on behalf of whoever fired it (API.md, "Audit").
      const firedBy = req.principal.kind === 'user' ? req.principal.tokenId : null;
      const { routineRun } = await ctx.routines.firing.fireManually(req.params.id, req.body?.variables ?? {}, firedBy);
      return reply.code(202).send({ routine_run: toApi(routineRun) });
    });
    r.post('/api/office/routines/:id/triggers', { schema: {
      ...operation({ operationId: 'createRoutineTrigger', summary: 'Add a trigger to a routine', tag: 'Routines', success: { 201: RoutineTriggerSchema }, errors: WRITE_ERRORS }),
      params: IdParams, body: TriggerBody }, config: { access: 'owner' }, preHandler: managerOf('routine') }, async (req, reply) =>
      reply.code(201).send(triggerView(await ctx.routines.catalogue.addTrigger(req.params.id, req.body), true)));
    r.patch('/api/office/routine-triggers/:id', { schema: {
      ...operation({ operationId: 'updateRoutineTrigger', summary: 'Change a trigger', tag: 'Routines', success: { 200: RoutineTriggerSchema }, errors: WRITE_ERRORS }),
      params: IdParams, body: PatchTriggerBody }, config: { access: 'owner' }, preHandler: managerOf('routine_trigger') }, async (req) =>
      triggerView(await ctx.routines.catalogue.updateTrigger(req.params.id, req.body)));
    r.delete('/api/office/routine-triggers/:id', { schema: {
      ...operation({ operationId: 'deleteRoutineTrigger', summary: 'Remove a trigger', tag: 'Routines', success: { 204: NO_CONTENT }, errors: WRITE_ERRORS }),
      params: IdParams }, config: { access: 'owner' }, preHandler: managerOf('routine_trigger') }, async (req, reply) => {
      await ctx.routines.catalogue.removeTrigger(req.params.id);
      return reply.code(204).send();
    });
    r.get('/api/office/routine-triggers/:id/preview', { schema: {
      ...operation({ operationId: 'previewRoutineTrigger', summary: 'The next fire times of a schedule trigger', tag: 'Routines', success: { 200: TriggerPreviewSchema }, errors: READ_ERRORS }),
      params: IdParams, querystring: PreviewQuery }, config: { access: 'read', agentRead: { ownerOf: 'routine_trigger' } } }, async (req) => {
      const trigger = await ctx.store.query((tx) => tx.routines.getTrigger(req.params.id)) ?? throwNotFound('routine trigger', req.params.id);
      if (trigger.kind !== 'schedule') throw invalid('id', `trigger '${trigger.id}' is a ${trigger.kind} trigger; only schedule triggers have fire times`);
      const times = nextFireTimes(trigger.cron_expression!, trigger.timezone ?? 'UTC', new Date(ctx.clock.now()), req.query.count ?? 5);
      return { trigger_id: trigger.id, timezone: trigger.timezone, next_fire_times: times.map((t) => t.toISOString()) };
    });
  };
}

async function routineDetail(ctx: AppContext, id: string) {
  return ctx.store.query(async (tx) => {
    const routine: Routine = await tx.routines.get(id) ?? throwNotFound('routine', id);
    return {
      ...toApi(routine),
      triggers: (await tx.routines.triggersOf(id)).map((t) => triggerView(t)),
      recent_runs: toApi(await tx.routines.runsOf(id, RECENT_RUNS)),
    };
  });
}
