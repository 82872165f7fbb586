import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pageRead } from '../../domain/pagination.js';
import { sendPage } from '../pages.js';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CreateApprovalBody, CreateBudgetBody, CreateCommentBody, CreateTaskBody, Id, MoveTaskBody, PatchBudgetBody, PatchTaskBody,
  CommentListQuery, ResolveApprovalBody, TaskListQuery, WorkspaceQuery,
} from '../../domain/schemas.js';
import type { Task } from '../../domain/types.js';
import { actorFieldsOf, commentAuthorOf, type CommentAuthor } from '../../domain/governance.js';
import { forbidden, invalid, notFound } from '../../services/errors.js';
import type { Actor } from '../../services/tasks.js';
import { ApprovalSchema, BudgetSchema, BudgetWithSpendSchema, CommentSchema, TaskSchema } from '../../domain/responseSchemas.js';
import { budgetsWithSpend } from '../../services/budgetStanding.js';
import type { AppContext } from '../context.js';
import { LIST_ERRORS, NO_CONTENT, READ_ERRORS, WRITE_ERRORS, operation } from '../openapi.js';
import { toApi } from '../serialize.js';
import { throwNotFound } from './org.js';

const IdParams = z.strictObject({ id: Id });

/**
 * Who writes: an agent as its run (what it writes is that run's follow-on work, with the run's
 * provenance), a person as its token.
 */
function actorOf(req: FastifyRequest): Actor {
  return req.principal.kind === 'agent' ? { type: 'agent', id: req.principal.agentId, runId: req.principal.runId } : { type: 'user', id: req.principal.tokenId };
}

/** The comment's author, from the credential (governance.ts): naming another is a 403, and changes nothing. */
function commentAuthor(req: FastifyRequest, named: { author_type?: 'user' | 'agent' | undefined; author_id?: string | undefined }): CommentAuthor {
  const decided = commentAuthorOf(req.principal, named);
  if ('refused' in decided) throw forbidden(decided.refused);
  if ('invalid' in decided) throw invalid(decided.invalid.field, decided.invalid.message);
  return decided.author;
}

/** A run token acts only inside its own workspace, and moves only its own tasks. */
async function taskForPrincipal(ctx: AppContext, req: FastifyRequest, taskId: string, mustBeAssignee: boolean): Promise<Task> {
  const task = await ctx.store.query((tx) => tx.tasks.get(taskId));
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

    r.post('/api/office/tasks', { schema: {
      ...operation({ operationId: 'createTask', summary: 'Create a task', tag: 'Tasks', success: { 201: TaskSchema }, errors: WRITE_ERRORS,
        description: 'A run token may create only subtasks (`parent_id`) in its own workspace, without an executor.' }),
      body: CreateTaskBody }, config: { access: 'member', agentAllowed: true } }, async (req, reply) => {
      const principal = req.principal;
      if (principal.kind === 'agent') {
        if (req.body.workspace_id !== principal.workspaceId) throw forbidden('the task must be in the agent\'s own workspace');
        if (!req.body.parent_id) throw forbidden('an agent may only create subtasks (parent_id is required)');
        // Choosing an executor is choosing what runs on the host: a person's decision, never an agent's.
        if (req.body.executor) throw forbidden('an agent may not set an executor on a task');
      }
      return reply.code(201).send(toApi(await ctx.tasks.createTask(req.body, actorOf(req))));
    });
    r.get('/api/office/tasks', { schema: {
      ...operation({ operationId: 'listTasks', summary: 'List tasks', tag: 'Tasks', success: { 200: z.array(TaskSchema) }, errors: LIST_ERRORS, paginated: true,
        description: 'Heavy routine tasks are left out unless `include_routine=true`.' }),
      querystring: TaskListQuery }, config: { access: 'read' } }, async (req, reply) =>
      toApi(sendPage(req, reply, 'tasks', await ctx.store.query((tx) => tx.tasks.list({ ...req.query, ...pageRead('tasks', req.query) })))));
    r.get('/api/office/tasks/:id', { schema: {
      ...operation({ operationId: 'getTask', summary: 'Read a task', tag: 'Tasks', success: { 200: TaskSchema }, errors: READ_ERRORS }),
      params: IdParams }, config: { access: 'read' } }, async (req) =>
      toApi(await ctx.store.query((tx) => tx.tasks.get(req.params.id)) ?? throwNotFound('task', req.params.id)));
    r.patch('/api/office/tasks/:id', { schema: {
      ...operation({ operationId: 'updateTask', summary: 'Change a task (title, description, assignee, blockers)', tag: 'Tasks', success: { 200: TaskSchema }, errors: WRITE_ERRORS }),
      params: IdParams, body: PatchTaskBody }, config: { access: 'member' } }, async (req) =>
      toApi(await ctx.tasks.updateTask(req.params.id, req.body)));
    r.post('/api/office/tasks/:id/move', { schema: {
      ...operation({ operationId: 'moveTask', summary: 'Move a task on the board', tag: 'Tasks', success: { 200: TaskSchema }, errors: WRITE_ERRORS,
        description: 'Moving a `requires_approval` task to DONE puts it in IN_REVIEW and creates an approval instead.' }),
      params: IdParams, body: MoveTaskBody }, config: { access: 'member', agentAllowed: true } }, async (req) => {
      await taskForPrincipal(ctx, req, req.params.id, true);
      return toApi(await ctx.tasks.moveTask(req.params.id, req.body.state, actorOf(req), req.body.note));
    });
    r.post('/api/office/tasks/:id/comments', { schema: {
      ...operation({ operationId: 'createComment', summary: 'Comment on a task', tag: 'Tasks', success: { 201: CommentSchema }, errors: WRITE_ERRORS }),
      params: IdParams, body: CreateCommentBody }, config: { access: 'member', agentAllowed: true } }, async (req, reply) => {
      await taskForPrincipal(ctx, req, req.params.id, false);
      const author = commentAuthor(req, req.body);
      return reply.code(201).send(toApi(await ctx.tasks.createComment(req.params.id, { body: req.body.body, ...author }, actorOf(req))));
    });
    r.get('/api/office/tasks/:id/comments', { schema: {
      ...operation({ operationId: 'listComments', summary: 'List a task\'s comments', tag: 'Tasks', success: { 200: z.array(CommentSchema) }, errors: LIST_ERRORS, paginated: true }),
      params: IdParams, querystring: CommentListQuery }, config: { access: 'read' } }, async (req, reply) =>
      toApi(sendPage(req, reply, 'comments', await ctx.store.query((tx) => tx.comments.listByTask(req.params.id, 0, pageRead('comments', req.query))))));

    r.post('/api/office/approvals', { schema: {
      ...operation({ operationId: 'createApproval', summary: 'Request an approval', tag: 'Approvals', success: { 201: ApprovalSchema }, errors: WRITE_ERRORS }),
      body: CreateApprovalBody }, config: { access: 'member' } }, async (req, reply) =>
      reply.code(201).send(toApi(await ctx.tasks.createApproval(req.body))));
    r.get('/api/office/approvals/:id', { schema: {
      ...operation({ operationId: 'getApproval', summary: 'Read an approval', tag: 'Approvals', success: { 200: ApprovalSchema }, errors: READ_ERRORS }),
      params: IdParams }, config: { access: 'read' } }, async (req) =>
      toApi(await ctx.store.query((tx) => tx.approvals.get(req.params.id)) ?? throwNotFound('approval', req.params.id)));
    r.post('/api/office/approvals/:id/resolve', { schema: {
      ...operation({ operationId: 'resolveApproval', summary: 'Approve or reject', tag: 'Approvals', success: { 200: ApprovalSchema }, errors: WRITE_ERRORS,
        description: 'Resolving a task\'s approval moves the task: `approved` to DONE, `rejected` to IN_PROGRESS.' }),
      params: IdParams, body: ResolveApprovalBody }, config: { access: 'member' } }, async (req) =>
      toApi(await ctx.tasks.resolveApproval(req.params.id, req.body.status, req.body.decision_note ?? null, actorOf(req))));

    r.post('/api/office/budgets', { schema: {
      ...operation({ operationId: 'createBudget', summary: 'Create a budget', tag: 'Budgets', success: { 201: BudgetSchema }, errors: WRITE_ERRORS }),
      body: CreateBudgetBody }, config: { access: 'admin' } }, async (req, reply) =>
      reply.code(201).send(toApi(await ctx.tasks.createBudget(req.body))));
    r.get('/api/office/budgets', { schema: {
      ...operation({ operationId: 'listBudgets', summary: 'List budgets, each with its spend in the current period', tag: 'Budgets', success: { 200: z.array(BudgetWithSpendSchema) }, errors: LIST_ERRORS }),
      querystring: WorkspaceQuery }, config: { access: 'read' } }, async (req) =>
      toApi(await ctx.store.read((tx) => budgetsWithSpend(tx, req.query.workspace_id, ctx.clock.now()))));
    r.patch('/api/office/budgets/:id', { schema: {
      ...operation({ operationId: 'updateBudget', summary: 'Change a budget\'s limit, period, action or alert threshold', tag: 'Budgets', success: { 200: BudgetSchema }, errors: WRITE_ERRORS }),
      params: IdParams, body: PatchBudgetBody }, config: { access: 'admin' } }, async (req) =>
      toApi(await ctx.tasks.updateBudget(req.params.id, req.body, actorFieldsOf(req.principal))));
    r.delete('/api/office/budgets/:id', { schema: {
      ...operation({ operationId: 'deleteBudget', summary: 'Delete a budget', tag: 'Budgets', success: { 204: NO_CONTENT }, errors: WRITE_ERRORS,
        description: 'Its limit no longer applies; what runs spent stays counted for any other budget of the scope.' }),
      params: IdParams }, config: { access: 'admin' } }, async (req, reply) => {
      await ctx.tasks.deleteBudget(req.params.id, actorFieldsOf(req.principal));
      return reply.code(204).send();
    });
  };
}
