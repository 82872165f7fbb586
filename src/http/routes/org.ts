import type { FastifyInstance } from 'fastify';
import { pageRead } from '../../domain/pagination.js';
import { sendPage } from '../pages.js';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AgentListQuery, CreateAgentBody, CreateProjectBody, CreateWorkspaceBody, Id, IdempotencyKey, PatchAgentBody, PatchProjectBody, PatchWorkspaceBody,
  ProjectListQuery, WakeAgentBody, WorkspaceListQuery,
} from '../../domain/schemas.js';
import { forbidden, invalid, notFound } from '../../services/errors.js';
import { requireWorkspace } from '../../services/org.js';
import { clientWakeKey, selfWakeKey } from '../../domain/idempotency.js';
import { actorFieldsOf } from '../../domain/governance.js';
import { provenanceOf } from '../../domain/provenance.js';
import { wakeNotBefore, type WakeTiming } from '../../domain/wakeDelay.js';
import type { Agent, Workspace } from '../../domain/types.js';
import { cooldownFromRows } from '../../actors/supervisor.js';
import { describeAgentActor } from '../../machines/agent.js';
import type { Reads } from '../../persistence/store.js';
import {
  AgentSchema, ContinuationSummarySchema, ProjectSchema, WakeResponseSchema, WorkspaceSchema,
} from '../../domain/responseSchemas.js';
import type { AppContext } from '../context.js';
import { LIST_ERRORS, NO_CONTENT, READ_ERRORS, WRITE_ERRORS, operation } from '../openapi.js';
import { toApi } from '../serialize.js';

const IdParams = z.strictObject({ id: Id });
/** Other headers pass through untouched; only the idempotency key is checked. */
const WakeHeaders = z.looseObject({ 'idempotency-key': IdempotencyKey.optional() });

export function orgRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post('/api/office/workspaces', { schema: {
      ...operation({ operationId: 'createWorkspace', summary: 'Create a workspace', tag: 'Workspaces', success: { 201: WorkspaceSchema }, errors: WRITE_ERRORS }),
      body: CreateWorkspaceBody }, config: { access: 'admin' } }, async (req, reply) =>
      reply.code(201).send(workspaceView(await ctx.org.createWorkspace(req.body))));
    r.get('/api/office/workspaces', { schema: {
      ...operation({ operationId: 'listWorkspaces', summary: 'List the workspaces', tag: 'Workspaces', success: { 200: z.array(WorkspaceSchema) }, errors: LIST_ERRORS, paginated: true }),
      querystring: WorkspaceListQuery }, config: { access: 'read', agentRead: 'workspaces' } }, async (req, reply) =>
      sendPage(req, reply, 'workspaces', await ctx.store.query((tx) => tx.workspaces.list(pageRead('workspaces', req.query)))).map(workspaceView));
    r.get('/api/office/workspaces/:id', { schema: {
      ...operation({ operationId: 'getWorkspace', summary: 'Read a workspace', tag: 'Workspaces', success: { 200: WorkspaceSchema }, errors: READ_ERRORS }),
      params: IdParams }, config: { access: 'read', agentRead: 'workspaces' } }, async (req) =>
      workspaceView(await ctx.store.read((tx) => requireWorkspace(tx, req.params.id, 'id'))));
    r.patch('/api/office/workspaces/:id', { schema: {
      ...operation({ operationId: 'updateWorkspace', summary: 'Change a workspace', tag: 'Workspaces', success: { 200: WorkspaceSchema }, errors: WRITE_ERRORS }),
      params: IdParams, body: PatchWorkspaceBody }, config: { access: 'admin' } }, async (req) =>
      workspaceView(await ctx.org.updateWorkspace(req.params.id, req.body)));
    r.delete('/api/office/workspaces/:id', { schema: {
      ...operation({ operationId: 'deleteWorkspace', summary: 'Delete a workspace', tag: 'Workspaces', success: { 204: NO_CONTENT }, errors: WRITE_ERRORS,
        description: 'Only a workspace with no agent left: one that still has agents is a 409 naming them. It leaves the lists; its tasks and history stay for the record.' }),
      params: IdParams }, config: { access: 'admin' } }, async (req, reply) => {
      await ctx.org.deleteWorkspace(req.params.id, actorFieldsOf(req.principal));
      return reply.code(204).send();
    });

    r.post('/api/office/projects', { schema: {
      ...operation({ operationId: 'createProject', summary: 'Create a project', tag: 'Projects', success: { 201: ProjectSchema }, errors: WRITE_ERRORS }),
      body: CreateProjectBody }, config: { access: 'admin' } }, async (req, reply) =>
      reply.code(201).send(toApi(await ctx.org.createProject(req.body))));
    r.get('/api/office/projects', { schema: {
      ...operation({ operationId: 'listProjects', summary: 'List projects', tag: 'Projects', success: { 200: z.array(ProjectSchema) }, errors: LIST_ERRORS, paginated: true }),
      querystring: ProjectListQuery }, config: { access: 'read' } }, async (req, reply) =>
      toApi(sendPage(req, reply, 'projects', await ctx.store.query((tx) => tx.projects.list(req.query.workspace_id, pageRead('projects', req.query))))));
    r.get('/api/office/projects/:id', { schema: {
      ...operation({ operationId: 'getProject', summary: 'Read a project', tag: 'Projects', success: { 200: ProjectSchema }, errors: READ_ERRORS }),
      params: IdParams }, config: { access: 'read' } }, async (req) =>
      toApi(await ctx.store.query((tx) => tx.projects.get(req.params.id)) ?? throwNotFound('project', req.params.id)));
    r.patch('/api/office/projects/:id', { schema: {
      ...operation({ operationId: 'updateProject', summary: 'Change a project', tag: 'Projects', success: { 200: ProjectSchema }, errors: WRITE_ERRORS }),
      params: IdParams, body: PatchProjectBody }, config: { access: 'admin' } }, async (req) =>
      toApi(await ctx.org.updateProject(req.params.id, req.body)));

    r.post('/api/office/agents', { schema: {
      ...operation({ operationId: 'createAgent', summary: 'Create an agent', tag: 'Agents', success: { 201: AgentSchema }, errors: WRITE_ERRORS,
        description: 'Creating a `ceo` or `coordinator` agent also creates its "Coordinator heartbeat" routine.' }),
      body: CreateAgentBody }, config: { access: 'admin' } }, async (req, reply) =>
      // A coordinator's heartbeat routine is owned by the token that creates the coordinator.
      reply.code(201).send(await agentView(ctx, await ctx.org.createAgent(req.body, req.principal.kind === 'user' ? req.principal.tokenId : undefined))));
    r.get('/api/office/agents', { schema: {
      ...operation({ operationId: 'listAgents', summary: 'List agents', tag: 'Agents', success: { 200: z.array(AgentSchema) }, errors: LIST_ERRORS, paginated: true }),
      querystring: AgentListQuery }, config: { access: 'read' } }, async (req, reply) =>
      agentViews(ctx, sendPage(req, reply, 'agents', await ctx.store.query((tx) => tx.agents.list({ workspace_id: req.query.workspace_id }, pageRead('agents', req.query))))));
    r.get('/api/office/agents/:id', { schema: {
      ...operation({ operationId: 'getAgent', summary: 'Read an agent, with its live actor', tag: 'Agents', success: { 200: AgentSchema }, errors: READ_ERRORS }),
      params: IdParams }, config: { access: 'read' } }, async (req) =>
      await agentView(ctx, await ctx.store.query((tx) => existingAgent(tx, req.params.id))));
    r.patch('/api/office/agents/:id', { schema: {
      ...operation({ operationId: 'updateAgent', summary: 'Change, pause or resume an agent', tag: 'Agents', success: { 200: AgentSchema }, errors: WRITE_ERRORS }),
      params: IdParams, body: PatchAgentBody }, config: { access: 'pause_or_resume' } }, async (req) =>
      await agentView(ctx, await ctx.org.updateAgent(req.params.id, req.body)));
    r.delete('/api/office/agents/:id', { schema: {
      ...operation({ operationId: 'deleteAgent', summary: 'Delete an agent', tag: 'Agents', success: { 204: NO_CONTENT }, errors: WRITE_ERRORS,
        description: 'Its queued and scheduled wakeups end cancelled, its open tasks are unassigned and its routines are paused.' }),
      params: IdParams }, config: { access: 'admin' } }, async (req, reply) => {
      await ctx.org.deleteAgent(req.params.id, actorFieldsOf(req.principal));
      return reply.code(204).send();
    });
    r.post('/api/office/agents/:id/wake', { schema: {
      ...operation({ operationId: 'wakeAgent', summary: 'Wake an agent', tag: 'Agents', errors: WRITE_ERRORS, optionalBody: true,
        description: 'With `delay_sec` (seconds, at most 30 days) or `at` (an ISO time within 30 days), the wakeup is queued now and runs no earlier than then (its `available_at`). A run token may wake only its own agent.',
        success: {
          202: { description: 'A wakeup was requested (queued, or folded into one already waiting).', schema: WakeResponseSchema },
          200: { description: 'A repeat of an earlier request (same idempotency key within the window): its first wakeup; nothing new was created.', schema: WakeResponseSchema },
        } }),
      params: IdParams, body: WakeAgentBody, headers: WakeHeaders }, config: { access: 'member', agentAllowed: true } }, async (req, reply) => {
      const body = { ...req.body, idempotency_key: wakeKeyOf(req.body.idempotency_key, req.headers['idempotency-key']) };
      const notBefore = wakeTimeOf(body, ctx.clock.now());
      const outcome = req.principal.kind === 'agent'
        ? await selfWake(ctx, req.principal, req.params.id, body, notBefore)
        : await ctx.org.wake(req.params.id, body, req.principal.tokenId, notBefore);
      // A repeat of an earlier request is answered with what it created, and creates nothing.
      if (outcome.kind === 'duplicate') {
        req.log.info({ agent_id: req.params.id, wakeup_id: outcome.wakeup.id, idempotency_key: body.idempotency_key }, 'repeated wake request answered with its first wakeup');
      }
      return reply.code(outcome.kind === 'duplicate' ? 200 : 202).send({ wakeup: toApi(outcome.wakeup), outcome: outcome.kind });
    });
    r.get('/api/office/agents/:id/summaries', { schema: {
      ...operation({ operationId: 'listAgentSummaries', summary: 'List an agent\'s continuation summaries', tag: 'Agents', success: { 200: z.array(ContinuationSummarySchema) }, errors: READ_ERRORS }),
      params: IdParams }, config: { access: 'read', agentRead: { ownerOf: 'agent' } } }, async (req) =>
      toApi(await ctx.store.query(async (tx) => tx.summaries.listForAgent((await existingAgent(tx, req.params.id)).id))));
  };
}

/** A workspace as the API shows it: a deleted one is never shown, so its deletion mark is not either. */
function workspaceView({ deleted_at: _deleted, ...workspace }: Workspace) {
  return toApi(workspace);
}

/** An agent may wake only itself, and its wake is a `self` wakeup, not a person's. */
async function selfWake(ctx: AppContext, principal: { agentId: string; runId: string }, agentId: string, body: z.output<typeof WakeAgentBody>, notBefore: number | undefined) {
  if (principal.agentId !== agentId) throw forbidden('a run token may only wake its own agent');
  return ctx.store.transaction(async (tx) => ctx.wakeups.enqueue(tx, {
    agent_id: agentId, source: 'self', reason: body.reason ?? 'self wake',
    payload: { reason: body.reason ?? 'self wake', ...(body.context ? { payload: body.context } : {}) },
    idempotency_key: body.idempotency_key
      ? clientWakeKey('self', agentId, body.idempotency_key)
      : selfWakeKey(principal.runId, ctx.clock.now()),
    not_before: notBefore,
    // The run's follow-on work: for the same person, under the routine-run caps when unattended.
    provenance: provenanceOf(await tx.runs.get(principal.runId)),
  }, ctx.clock.now()));
}

/** A wake for later (`delay_sec` or `at`): its earliest start, or a 400 that changes nothing. */
function wakeTimeOf(body: WakeTiming, now: number): number | undefined {
  const time = wakeNotBefore(body, now);
  if ('invalid' in time) throw invalid(time.invalid.field, time.invalid.message);
  return time.notBefore;
}

/** The key may come in the body or as the Idempotency-Key header; two different keys are a mistake worth a 400. */
function wakeKeyOf(bodyKey: string | undefined, headerKey: string | undefined): string | undefined {
  if (bodyKey !== undefined && headerKey !== undefined && bodyKey !== headerKey) {
    throw invalid('idempotency_key', `the body says '${bodyKey}' but the Idempotency-Key header says '${headerKey}'; send one key, or the same in both`);
  }
  return bodyKey ?? headerKey;
}

/** A deleted agent is gone from the API, like one that never existed. */
async function existingAgent(reads: Reads, id: string): Promise<Agent> {
  const agent = await reads.agents.get(id);
  if (!agent || agent.deleted_at !== null) throw notFound('agent', id);
  return agent;
}

export async function agentView(ctx: AppContext, agent: Agent) {
  return (await agentViews(ctx, [agent]))[0];
}

/**
 * Agents with their actors. An actor running here is described live; one another replica runs (it
 * holds the agent's lease) is described from the snapshot that replica stored last, with its id.
 * One read, only for agents whose actor is not here (none with SQLite, where this process runs all).
 */
export async function agentViews(ctx: AppContext, agents: Agent[]) {
  const here = replicaHere(ctx);
  const away = agents.filter((agent) => ctx.supervisor.view(agent.id) === null).map((agent) => agent.id);
  const remote = away.length === 0 ? new Map<string, HeldElsewhere>() : await ctx.store.query((tx) => heldElsewhere(ctx, tx, away));
  return agents.map((agent) => {
    const local = ctx.supervisor.view(agent.id);
    const there = remote.get(agent.id);
    const actor = local ? { ...local, replica: here } : there ? { ...remoteActorView(agent, there.snapshot), replica: there.replica } : null;
    return { ...toApi(agent), actor };
  });
}

function replicaHere(ctx: AppContext): string {
  return ctx.replicaId ?? ctx.config.replicaId;
}

/** The replica running an agent's actor elsewhere, and the snapshot of it that replica stored last. */
interface HeldElsewhere {
  replica: string;
  snapshot: unknown;
}

/** Of `agentIds`, those whose unexpired lease another replica holds: one read, and one per agent found. */
async function heldElsewhere(ctx: AppContext, reads: Reads, agentIds: string[]): Promise<Map<string, HeldElsewhere>> {
  const here = replicaHere(ctx);
  const found = new Map<string, HeldElsewhere>();
  for (const [agentId, replica] of await reads.replicas.holders(agentIds, ctx.clock.now())) {
    if (replica !== here) found.set(agentId, { replica, snapshot: await reads.snapshots.get(agentId) });
  }
  return found;
}

/**
 * What explain needs of the actor of an agent that does not run here (another replica holds it, or
 * none does): its state from the snapshot its holder stored, and from the rows, which are current
 * where a stored snapshot lags its actor: the cooldown (last_wakeup_finished_at + cooldown_sec, as a
 * restored actor rebuilds it), the sessions running (the agent's queued and running runs) and its concurrency.
 */
export async function actorFromRows(ctx: AppContext, reads: Reads, agent: Agent) {
  const elsewhere = (await heldElsewhere(ctx, reads, [agent.id])).get(agent.id);
  const cooldownUntil = cooldownFromRows(agent, ctx.clock.now());
  // A queued run holds a slot as a running one does: its session is starting.
  const open = [...await reads.runs.list({ agent_id: agent.id, status: 'queued' }), ...await reads.runs.list({ agent_id: agent.id, status: 'running' })];
  return {
    ...remoteActorView(agent, elsewhere?.snapshot),
    running: open.length,
    max_concurrent_sessions: agent.max_concurrent_sessions,
    cooldown_until: cooldownUntil === null ? null : new Date(cooldownUntil).toISOString(),
    replica: elsewhere?.replica ?? null,
  };
}

/** An actor another replica runs, from its stored snapshot (none stored yet: what a fresh actor shows). */
function remoteActorView(agent: Agent, snapshot: unknown) {
  if (snapshot && typeof snapshot === 'object' && 'context' in snapshot && 'value' in snapshot) {
    try {
      return describeAgentActor(snapshot as Parameters<typeof describeAgentActor>[0]);
    } catch {
      // A snapshot of an older machine: described as a fresh actor below.
    }
  }
  return { state: 'active.idle', queued: 0, running: 0, max_concurrent_sessions: agent.max_concurrent_sessions, cooldown_until: null, next_available_at: null };
}

export function throwNotFound(resource: string, id: string): never {
  throw notFound(resource, id);
}
