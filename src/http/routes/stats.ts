import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  BUCKET_MS, MAX_TIMELINE_RUNS, StatsQuery, StatsSchema, TimelineQuery, TimelineSchema,
  costSeries, isRangeProblem, statsRange, timelineRange, wakeupSeries, type RangeProblem, type TimeRange,
} from '../../domain/stats.js';
import type { Reads, StatsScope } from '../../persistence/store.js';
import { invalid } from '../../services/errors.js';
import type { AppContext } from '../context.js';
import { READ_ERRORS, operation } from '../openapi.js';
import { toApi } from '../serialize.js';
import { throwNotFound } from './org.js';

/** Pictures of time: the aggregates behind the dashboard's charts, counted by the database. */
export function statsRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get('/api/office/stats', { schema: {
      ...operation({ operationId: 'getStats', summary: 'Wakeups by outcome and cost, per minute, hour or day', tag: 'Runs', success: { 200: StatsSchema }, errors: READ_ERRORS,
        description: 'Every bucket of the range, zeros included, counted in SQL. A range over the bucket limit is a 400 naming `from`.' }),
      querystring: StatsQuery }, config: { access: 'read' } }, async (req) => {
      const range = rangeOrThrow(statsRange(req.query, ctx.clock.now()));
      const scope: StatsScope = { workspace_id: req.query.workspace_id, agent_id: req.query.agent_id, ...range };
      const { bucket } = req.query;
      const [wakeups, costs] = await ctx.store.query(async (tx) => {
        await requireScope(tx, scope);
        return [await tx.stats.wakeupOutcomes(scope, bucket), await tx.stats.costs(scope, bucket)] as const;
      });
      return toApi({
        workspace_id: scope.workspace_id, agent_id: scope.agent_id ?? null, bucket, bucket_sec: BUCKET_MS[bucket] / 1000,
        from: iso(range.from), to: iso(range.to),
        wakeups: wakeupSeries(range, bucket, wakeups), cost: costSeries(range, bucket, costs),
      });
    });

    // Run tokens may not read it: its bars are other agents' runs too (API.md, "Run token").
    r.get('/api/office/stats/timeline', { schema: {
      ...operation({ operationId: 'getRunTimeline', summary: 'The runs of a range, for a timeline', tag: 'Runs', success: { 200: TimelineSchema }, errors: READ_ERRORS,
        description: `Runs that had started and overlap the range (default: the last 24 hours), oldest start first, at most ${MAX_TIMELINE_RUNS}.` }),
      querystring: TimelineQuery }, config: { access: 'read', agentRead: false } }, async (req) => {
      const range = rangeOrThrow(timelineRange(req.query, ctx.clock.now()));
      const scope: StatsScope = { workspace_id: req.query.workspace_id, agent_id: req.query.agent_id, ...range };
      const runs = await ctx.store.query(async (tx) => {
        await requireScope(tx, scope);
        return tx.stats.runSpans(scope, MAX_TIMELINE_RUNS + 1);
      });
      return toApi({
        workspace_id: scope.workspace_id, agent_id: scope.agent_id ?? null, from: iso(range.from), to: iso(range.to),
        runs: runs.slice(0, MAX_TIMELINE_RUNS), truncated: runs.length > MAX_TIMELINE_RUNS,
      });
    });
  };
}

function rangeOrThrow(range: TimeRange | RangeProblem): TimeRange {
  if (isRangeProblem(range)) throw invalid(`querystring.${range.field}`, range.message);
  return range;
}

/** An unknown workspace, or an agent of another workspace, is a 404 rather than empty charts. */
async function requireScope(reads: Reads, scope: StatsScope): Promise<void> {
  if (!(await reads.workspaces.get(scope.workspace_id))) throwNotFound('workspace', scope.workspace_id);
  if (scope.agent_id === undefined) return;
  const agent = await reads.agents.get(scope.agent_id);
  if (!agent || agent.workspace_id !== scope.workspace_id) throwNotFound('agent', scope.agent_id);
}

const iso = (at: number) => new Date(at).toISOString();
