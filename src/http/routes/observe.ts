import type { FastifyInstance } from 'fastify';
import { pageRead } from '../../domain/pagination.js';
import { sendPage } from '../pages.js';
import type { Logger } from 'pino';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { hasZeroDailyCap } from '../../domain/dailyCaps.js';
import { explainWakeup, type ExplainInput, type FoldTarget } from '../../domain/explain.js';
import { ActivityQuery, Id, InboxQuery, RunListQuery, WakeupListQuery } from '../../domain/schemas.js';
import type { Agent, Wakeup } from '../../domain/types.js';
import type { Reads } from '../../persistence/store.js';
import {
  ActivityEntrySchema, InboxItemSchema, QuotaSchema, RunSchema, TranscriptSchema, WakeupDetailSchema, WakeupSchema,
} from '../../domain/responseSchemas.js';
import type { AppContext } from '../context.js';
import { LIST_ERRORS, READ_ERRORS, WRITE_ERRORS, operation } from '../openapi.js';
import { toApi } from '../serialize.js';
import { actorFieldsOf } from '../../domain/governance.js';
import { RESOLVED_INBOX_ITEMS_LISTED } from '../../domain/inbox.js';
import { resolveInboxItem } from '../../services/inbox.js';
import { actorFromRows, throwNotFound } from './org.js';

const IdParams = z.strictObject({ id: Id });
const QuotaListQuery = z.strictObject({
  all: z.enum(['true', 'false']).optional().describe('Also list quotas not exhausted now.'),
});
const CancelRunBody = z.strictObject({
  reason: z.string().min(1).max(2000).optional().describe('Why the run is stopped: kept in its error and in the activity entry.'),
});

/** Wakeups, runs, activity and the inbox: the read side that answers "why?". */
export function observeRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get('/api/office/wakeups', { schema: {
      ...operation({ operationId: 'listWakeups', summary: 'List wakeups, each with why it is where it is', tag: 'Wakeups', success: { 200: z.array(WakeupSchema) }, errors: LIST_ERRORS, paginated: true }),
      querystring: WakeupListQuery }, config: { access: 'read' } }, async (req, reply) =>
      ctx.store.query(async (tx) => {
        const wakeups = sendPage(req, reply, 'wakeups', await tx.wakeups.list({ ...req.query, ...pageRead('wakeups', req.query) } as never));
        const actorOf = actorsForExplain(ctx, tx);
        return Promise.all(wakeups.map(async (w) => ({ ...toApi(w), explain: await explain(ctx, tx, w, actorOf) })));
      }));
    r.get('/api/office/wakeups/:id', { schema: {
      ...operation({ operationId: 'explainWakeup', summary: 'Read a wakeup with its explanation and its decisions', tag: 'Wakeups', success: { 200: WakeupDetailSchema }, errors: READ_ERRORS }),
      params: IdParams }, config: { access: 'read' } }, async (req) =>
      ctx.store.query(async (tx) => {
        const wakeup = await tx.wakeups.get(req.params.id) ?? throwNotFound('wakeup', req.params.id);
        const activity = await tx.activity.list({ wakeup_id: wakeup.id, limit: 50 });
        return { ...toApi(wakeup), explain: await explain(ctx, tx, wakeup), activity: toApi(activity) };
      }));

    r.get('/api/office/runs', { schema: {
      ...operation({ operationId: 'listRuns', summary: 'List runs', tag: 'Runs', success: { 200: z.array(RunSchema) }, errors: LIST_ERRORS, paginated: true }),
      querystring: RunListQuery }, config: { access: 'read', agentRead: 'runs' } }, async (req, reply) =>
      toApi(sendPage(req, reply, 'runs', await ctx.store.query((tx) => tx.runs.list({ ...req.query, ...pageRead('runs', req.query) })))));
    r.get('/api/office/runs/:id', { schema: {
      ...operation({ operationId: 'getRun', summary: 'Read a run', tag: 'Runs', success: { 200: RunSchema }, errors: READ_ERRORS,
        description: 'A run token may read only its own agent\'s runs.' }),
      params: IdParams }, config: { access: 'read', agentRead: 'runs' } }, async (req) =>
      toApi(await ctx.store.query((tx) => tx.runs.get(req.params.id)) ?? throwNotFound('run', req.params.id)));

    r.get('/api/office/runs/:id/transcript', { schema: {
      ...operation({ operationId: 'getRunTranscript', summary: 'What a run\'s session printed, parsed into events', tag: 'Runs', success: { 200: TranscriptSchema }, errors: READ_ERRORS,
        description: 'Answers while the run runs (at most half a second behind the event stream, which carries new events live as `transcript` items). '
          + 'A run keeps its last OFFICE_TRANSCRIPT_MAX_BYTES; past that `truncated` is true.' }),
      params: IdParams }, config: { access: 'read', agentRead: 'runs' } }, async (req) =>
      ctx.store.query(async (tx) => {
        const run = await tx.runs.get(req.params.id) ?? throwNotFound('run', req.params.id);
        // `at` is a time whose name toApi does not recognise (it converts `*_at`).
        const events = (await tx.transcripts.list(run.id)).map((event) => ({ ...event, at: new Date(event.at).toISOString() }));
        return toApi({ run_id: run.id, workspace_id: run.workspace_id, agent_id: run.agent_id, events, truncated: run.transcript_truncated ?? false });
      }));
    r.get('/api/office/quotas', { schema: {
      ...operation({ operationId: 'listQuotas', summary: 'The agent programs\' shared quotas exhausted now', tag: 'Runs', success: { 200: z.array(QuotaSchema) }, errors: LIST_ERRORS,
        description: 'A quota is exhausted when a session\'s limit named its reset: until then no session starts for the agents whose executors share its key, and their wakeups stay queued with no retry spent. '
          + '`?all=true` also lists the quotas that are not exhausted now but were, or that warned of a limit near.' }),
      querystring: QuotaListQuery }, config: { access: 'read', agentRead: false } }, async (req) =>
      toApi(await ctx.store.read((tx) => ctx.quotas.list(tx, ctx.clock.now(), req.query.all === 'true'))));

    r.post('/api/office/runs/:id/cancel', { schema: {
      ...operation({ operationId: 'cancelRun', summary: 'Stop a running run', tag: 'Runs', success: { 200: RunSchema }, errors: WRITE_ERRORS, optionalBody: true,
        description: 'Stops the session (a command\'s process group gets SIGTERM, then SIGKILL after OFFICE_SHUTDOWN_GRACE_MS; an HTTP agent\'s request is aborted). '
          + 'The run ends `cancelled` and its wakeup `cancelled` with `cancel_reason: "run_cancelled"`, not retried. A run that already ended is a 409. '
          + 'A member may cancel only the runs done on its behalf (`on_behalf_of`: its own manual fires, its routines\' runs and their follow-on work) and the runs of routines it owns; an admin any run.' }),
      params: IdParams, body: CancelRunBody.nullish() }, config: { access: 'owner' } }, async (req) =>
      toApi(await ctx.runCancels.cancel(req.params.id, req.principal, req.body?.reason ?? null)));

    r.get('/api/office/activity', { schema: {
      ...operation({ operationId: 'listActivity', summary: 'The activity feed', tag: 'Activity', success: { 200: z.array(ActivityEntrySchema) }, errors: LIST_ERRORS, paginated: true }),
      querystring: ActivityQuery }, config: { access: 'read' } }, async (req, reply) =>
      toApi(sendPage(req, reply, 'activity', await ctx.store.query((tx) => tx.activity.list({ ...req.query, ...pageRead('activity', req.query) })))));
    r.get('/api/office/inbox', { schema: {
      ...operation({ operationId: 'listInbox', summary: 'Inbox items: agent errors and approvals awaiting a person', tag: 'Activity', success: { 200: z.array(InboxItemSchema) }, errors: LIST_ERRORS,
        description: `Newest first: every open item, and the newest ${RESOLVED_INBOX_ITEMS_LISTED} resolved ones, so that resolved items never crowd an open one out.` }),
      querystring: InboxQuery }, config: { access: 'read' } }, async (req) =>
      toApi(await ctx.store.query((tx) => tx.inbox.list(req.query.workspace_id, req.query.status))));
    r.post('/api/office/inbox/:id/resolve', { schema: {
      ...operation({ operationId: 'resolveInboxItem', summary: 'Mark an inbox item (an agent error) as dealt with', tag: 'Activity', success: { 200: InboxItemSchema }, errors: WRITE_ERRORS,
        description: 'An approval is decided with `POST /api/office/approvals/:id/resolve`, not here (409), and an item already resolved is a 409.' }),
      params: IdParams }, config: { access: 'member' } }, async (req) =>
      toApi(await resolveInboxItem({ store: ctx.store, clock: ctx.clock, log: req.log as Logger }, req.params.id, actorFieldsOf(req.principal))));
  };
}

type ActorOf = (agentId: string, agent: Agent | undefined) => Promise<ExplainInput['actor']>;

/**
 * The actor explain reads for an agent: live where it runs here; elsewhere (another replica holds
 * it, or none does) what it would say, from the database, read once per agent for a whole list.
 */
function actorsForExplain(ctx: AppContext, reads: Reads): ActorOf {
  const fromRows = new Map<string, Promise<ExplainInput['actor']>>();
  return async (agentId, agent) => {
    const here = ctx.supervisor.view(agentId);
    if (here || !agent) return here;
    let read = fromRows.get(agentId);
    if (!read) fromRows.set(agentId, read = actorFromRows(ctx, reads, agent));
    return read;
  };
}

async function explain(ctx: AppContext, reads: Reads, wakeup: Wakeup, actorOf: ActorOf = actorsForExplain(ctx, reads)): Promise<string> {
  const agent = await reads.agents.get(wakeup.agent_id);
  const task = wakeup.task_id ? await reads.tasks.get(wakeup.task_id) : undefined;
  const assignee = task?.assignee_agent_instance_id ? await reads.agents.get(task.assignee_agent_instance_id) : undefined;
  const [latest] = await reads.activity.list({ wakeup_id: wakeup.id, limit: 1 });
  return explainWakeup({
    wakeup,
    agentName: agent?.name ?? wakeup.agent_id,
    agentStatus: agent?.status ?? 'deleted',
    zeroDailyCap: agent ? hasZeroDailyCap(agent) : false,
    actor: await actorOf(wakeup.agent_id, agent),
    lastDecision: latest?.message ?? null,
    assigneeName: assignee?.name ?? null,
    coalescedIntoId: wakeup.coalesced_into_id,
    foldedInto: await foldTargetOf(reads, wakeup),
    now: ctx.clock.now(),
  });
}

async function foldTargetOf(reads: Reads, wakeup: Wakeup): Promise<FoldTarget | null> {
  if (wakeup.status !== 'coalesced' || !wakeup.coalesced_into_id) return null;
  const target = await reads.wakeups.get(wakeup.coalesced_into_id);
  if (!target) return null;
  const linked = wakeup.run_id ? await reads.runs.get(wakeup.run_id) : undefined;
  return {
    status: target.status, skip_reason: target.skip_reason, cancel_reason: target.cancel_reason, run_id: target.run_id,
    linkedRun: linked ? { status: linked.status, finished_at: linked.finished_at } : null,
  };
}
