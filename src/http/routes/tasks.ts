import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CreateApprovalBody, CreateBudgetBody, CreateCommentBody, CreateTaskBody, Id, MoveTaskBody, PatchTaskBody,
  ResolveApprovalBody, TaskListQuery, WorkspaceQuery,
} from '../../domain/schemas.js';
import type { Task } from '../../domain/types.js';
import { forbidden, notFound } from '../../services/errors.js';
import type { Actor } from '../../services/tasks.js';
import type { AppContext } from '../context.js';
import { toApi } from '../serialize.js';
import { throwNotFound } from './org.js';

const IdParams = z.strictObject({ id: Id });

function actorOf(req: FastifyRequest): Actor {
  return req.principal.kind === 'agent' ? { type: 'agent', id: req.principal.agentId } : { type: 'user', id: null };
}

/** A run token acts only inside its own workspace, and moves only its own tasks. */
async function taskForPrincipal(ctx: AppContext, req: FastifyRequest, taskId: string, mustBeAssignee: boolean): Promise<Task> {
  const task = await ctx.store.read((tx) => tx.tasks.get(taskId));
  if (!task) throw notFound('task', taskId);
  const principal = req.principal;
  if (principal.kind === 'agent') {
    if (task.workspace_id !== principal.workspaceId) throw forbidden('the task is in another workspace');
    if (mustBeAssignee && task.assignee_agent_instance_id !== principal.agentId) throw forbidden('an agent may only move its own tasks');
  }
  return task;
}

export function taskRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post('/api/office/tasks', { schema: { body: CreateTaskBody }, config: { agentAllowed: true } }, async (req, reply) => {
      const principal = req.principal;
      if (principal.kind === 'agent') {
        if (req.body.workspace_id !== principal.workspaceId) throw forbidden('the task must be in the agent\'s own workspace');
        if (!req.body.parent_id) throw forbidden('an agent may only create subtasks (parent_id is required)');
        // Choosing an executor is choosing what runs on the host: a person's decision, never an agent's.
        if (req.body.executor) throw forbidden('an agent may not set an executor on a task');
      }
      return reply.code(201).send(toApi(await ctx.tasks.createTask(req.body, actorOf(req))));
    });
    r.get('/api/office/tasks', { schema: { querystring: TaskListQuery } }, async (req) =>
      toApi(await ctx.store.read((tx) => tx.tasks.list(req.query))));
    r.get('/api/office/tasks/:id', { schema: { params: IdParams } }, async (req) =>
      toApi(await ctx.store.read((tx) => tx.tasks.get(req.params.id)) ?? throwNotFound('task', req.params.id)));
    r.patch('/api/office/tasks/:id', { schema: { params: IdParams, body: PatchTaskBody } }, async (req) =>
      toApi(await ctx.tasks.updateTask(req.params.id, req.body)));
    r.post('/api/office/tasks/:id/move', { schema: { params: IdParams, body: MoveTaskBody }, config: { agentAllowed: true } }, async (req) => {
      await taskForPrincipal(ctx, req, req.params.id, true);
      return toApi(await ctx.tasks.moveTask(req.params.id, req.body.state, actorOf(req), req.body.note));
    });
    r.post('/api/office/tasks/:id/comments', { schema: { params: IdParams, body: CreateCommentBody }, config: { agentAllowed: true } }, async (req, reply) => {
      await taskForPrincipal(ctx, req, req.params.id, false);
      const body = req.principal.kind === 'agent'
        ? { ...req.body, author_type: 'agent' as const, author_id: req.principal.agentId }
        : req.body;
      return reply.code(201).send(toApi(await ctx.tasks.createComment(req.params.id, body)));
    });
    r.get('/api/office/tasks/:id/comments', { schema: { params: IdParams } }, async (req) =>
      toApi(await ctx.store.read((tx) => tx.comments.listByTask(req.params.id))));

    r.post('/api/office/approvals', { schema: { body: CreateApprovalBody } }, async (req, reply) =>
      reply.code(201).send(toApi(await ctx.tasks.createApproval(req.body))));
    r.get('/api/office/approvals/:id', { schema: { params: IdParams } }, async (req) =>
      toApi(await ctx.store.read((tx) => tx.approvals.get(req.params.id)) ?? throwNotFound('approval', req.params.id)));
    r.post('/api/office/approvals/:id/resolve', { schema: { params: IdParams, body: ResolveApprovalBody } }, async (req) =>
      toApi(await ctx.tasks.resolveApproval(req.params.id, req.body.status, req.body.decision_note ?? null)));

    r.post('/api/office/budgets', { schema: { body: CreateBudgetBody } }, async (req, reply) =>
      reply.code(201).send(toApi(await ctx.tasks.createBudget(req.body))));
    r.get('/api/office/budgets', { schema: { querystring: WorkspaceQuery } }, async (req) =>
      toApi(await ctx.store.read((tx) => tx.budgets.list(req.query.workspace_id))));
  };
}
