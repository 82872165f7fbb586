/**
 * Pictures of time (GET /api/office/stats and /stats/timeline): the buckets a range is cut into,
 * the wakeup outcomes counted per bucket, and the bounds that keep one request cheap. The counting
 * itself is SQL (persistence/*\/stats.ts); here are the rules both the route and the store follow.
 */
import { z } from 'zod';
import { Id } from './schemas.js';
import { RUN_STATUSES, type RunStatus, type WakeupStatus } from './types.js';

/** Buckets are fixed widths aligned to the epoch, so days are UTC days, as budgets' daily periods are. */
export const BUCKET_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
export type Bucket = keyof typeof BUCKET_MS;
export const BUCKETS = Object.keys(BUCKET_MS) as Bucket[];

/** A day of minutes, 60 days of hours, nearly four years of days: enough for any chart, bounded for the database. */
export const MAX_BUCKETS = 1440;
/** The timeline draws one bar per run: past this many it says it was cut. */
export const MAX_TIMELINE_RUNS = 2000;
/** With no `from`: this many buckets before `to` (an hour of minutes, 2.5 days of hours, a month of days). */
const DEFAULT_BUCKETS = { minute: 60, hour: 60, day: 30 } as const;
const DEFAULT_TIMELINE_MS = 24 * 3_600_000;

/** The ends a wakeup can reach, each a series of the wakeups chart. */
export const WAKEUP_OUTCOMES = ['finished', 'skipped', 'coalesced', 'failed', 'cancelled'] as const satisfies readonly WakeupStatus[];
export type WakeupOutcome = (typeof WAKEUP_OUTCOMES)[number];

const Instant = z.iso.datetime({ offset: true }).describe('ISO-8601; with no offset, UTC');

export const StatsQuery = z.strictObject({
  workspace_id: Id,
  agent_id: Id.optional().describe('Only this agent\'s wakeups and costs.'),
  from: Instant.optional().describe('Start of the range (rounded down to its bucket). Default: 60 buckets before `to` (30 for days).'),
  to: Instant.optional().describe('End of the range, exclusive. Default: now.'),
  bucket: z.enum(BUCKETS).default('minute').describe(`Bucket width: minute, hour or day (UTC days). At most ${MAX_BUCKETS} buckets per request.`),
});
export type StatsQuery = z.infer<typeof StatsQuery>;

export const TimelineQuery = z.strictObject({
  workspace_id: Id,
  agent_id: Id.optional().describe('Only this agent\'s runs.'),
  from: Instant.optional().describe('Start of the range. Default: 24 hours before `to`.'),
  to: Instant.optional().describe('End of the range, exclusive. Default: now.'),
});
export type TimelineQuery = z.infer<typeof TimelineQuery>;

/** A range as the store reads it: epoch milliseconds, `to` exclusive. */
export interface TimeRange {
  from: number;
  to: number;
}

/** Why a range is refused, naming the query field to change; null when it is fine. */
export interface RangeProblem {
  field: 'from' | 'to';
  message: string;
}

/** The range a stats query covers: its `from` rounded down to a bucket start, so every bucket is whole at its start. */
export function statsRange(query: Pick<StatsQuery, 'from' | 'to' | 'bucket'>, now: number): TimeRange | RangeProblem {
  const size = BUCKET_MS[query.bucket];
  const to = query.to ? Date.parse(query.to) : now;
  const from = floorTo(query.from ? Date.parse(query.from) : to - DEFAULT_BUCKETS[query.bucket] * size, size);
  if (from >= to) return { field: 'to', message: `must be after from (${new Date(from).toISOString()})` };
  const buckets = Math.ceil((to - from) / size);
  if (buckets > MAX_BUCKETS) {
    return { field: 'from', message: `the range holds ${buckets} ${query.bucket} buckets, over the limit of ${MAX_BUCKETS}: move from closer to to, or use a wider bucket` };
  }
  return { from, to };
}

/** The range of a timeline query, at most MAX_BUCKETS hours (60 days) long; the bars are bounded by MAX_TIMELINE_RUNS. */
export function timelineRange(query: Pick<TimelineQuery, 'from' | 'to'>, now: number): TimeRange | RangeProblem {
  const to = query.to ? Date.parse(query.to) : now;
  const from = query.from ? Date.parse(query.from) : to - DEFAULT_TIMELINE_MS;
  if (from >= to) return { field: 'to', message: `must be after from (${new Date(from).toISOString()})` };
  const maxMs = MAX_BUCKETS * BUCKET_MS.hour;
  if (to - from > maxMs) return { field: 'from', message: `the range is over ${maxMs / BUCKET_MS.day} days: move from closer to to` };
  return { from, to };
}

export function isRangeProblem(range: TimeRange | RangeProblem): range is RangeProblem {
  return 'field' in range;
}

/** Start of every bucket of the range, oldest first. */
export function bucketStarts(range: TimeRange, bucket: Bucket): number[] {
  const size = BUCKET_MS[bucket];
  const starts: number[] = [];
  for (let at = floorTo(range.from, size); at < range.to; at += size) starts.push(at);
  return starts;
}

function floorTo(at: number, size: number): number {
  return at - (((at % size) + size) % size);
}

/** What the store counts per bucket (`bucket` is the bucket's start, epoch ms). */
export interface WakeupOutcomeCount {
  bucket: number;
  status: WakeupOutcome;
  count: number;
}

export interface CostInBucket {
  bucket: number;
  cost_usd: number;
  /** Cost entries (one per run that reported a cost). */
  runs: number;
}

/** One bar of the timeline: a run that had started, clipped by nothing (the chart clips). */
export interface RunSpan {
  id: string;
  agent_id: string;
  status: RunStatus;
  started_at: number;
  /** Null while it runs. */
  finished_at: number | null;
}

export type WakeupsPoint = { starts_at: number } & Record<WakeupOutcome, number>;
export interface CostPoint { starts_at: number; cost_usd: number; runs: number }

/** Every bucket of the range, with zeros where the store found nothing: a chart needs the gaps. */
export function wakeupSeries(range: TimeRange, bucket: Bucket, counts: readonly WakeupOutcomeCount[]): WakeupsPoint[] {
  const points = new Map(bucketStarts(range, bucket).map((at) => [at, { starts_at: at, ...zeroOutcomes() }]));
  for (const row of counts) {
    const point = points.get(row.bucket);
    if (point) point[row.status] += row.count;
  }
  return [...points.values()];
}

export function costSeries(range: TimeRange, bucket: Bucket, costs: readonly CostInBucket[]): CostPoint[] {
  const points = new Map(bucketStarts(range, bucket).map((at) => [at, { starts_at: at, cost_usd: 0, runs: 0 }]));
  for (const row of costs) {
    const point = points.get(row.bucket);
    if (point) {
      point.cost_usd += row.cost_usd;
      point.runs += row.runs;
    }
  }
  return [...points.values()];
}

function zeroOutcomes(): Record<WakeupOutcome, number> {
  return Object.fromEntries(WAKEUP_OUTCOMES.map((outcome) => [outcome, 0])) as Record<WakeupOutcome, number>;
}

// Responses -------------------------------------------------------------------------------------

const Timestamp = z.iso.datetime().describe('ISO-8601 UTC');

const WakeupsPointSchema = z.object({
  starts_at: Timestamp.describe('Start of the bucket.'),
  ...Object.fromEntries(WAKEUP_OUTCOMES.map((outcome) => [outcome, z.number().int().describe(`Wakeups that ended ${outcome} in the bucket.`)])) as Record<WakeupOutcome, z.ZodNumber>,
}).meta({ id: 'WakeupsPoint' });

const CostPointSchema = z.object({
  starts_at: Timestamp.describe('Start of the bucket.'),
  cost_usd: z.number().describe('Sum of the costs runs reported in the bucket.'),
  runs: z.number().int().describe('Runs that reported a cost in the bucket.'),
}).meta({ id: 'CostPoint' });

export const StatsSchema = z.object({
  workspace_id: z.string(),
  agent_id: z.string().nullable(),
  bucket: z.enum(BUCKETS),
  bucket_sec: z.number().int(),
  from: Timestamp.describe('Start of the first bucket.'),
  to: Timestamp.describe('End of the range, exclusive.'),
  wakeups: z.array(WakeupsPointSchema).describe('Every bucket of the range, oldest first, with the wakeups that ended in it by outcome.'),
  cost: z.array(CostPointSchema).describe('Every bucket of the range, oldest first, with the cost reported in it.'),
}).meta({ id: 'Stats', description: 'Wakeups by outcome and cost, per bucket, counted in SQL.' });

const RunSpanSchema = z.object({
  id: z.string(),
  agent_id: z.string(),
  status: z.enum(RUN_STATUSES),
  started_at: Timestamp,
  finished_at: Timestamp.nullable().describe('Null while it runs.'),
}).meta({ id: 'RunSpan' });

export const TimelineSchema = z.object({
  workspace_id: z.string(),
  agent_id: z.string().nullable(),
  from: Timestamp,
  to: Timestamp,
  runs: z.array(RunSpanSchema).describe(`Runs that had started and overlap the range, oldest start first, at most ${MAX_TIMELINE_RUNS}.`),
  truncated: z.boolean().describe(`True when more than ${MAX_TIMELINE_RUNS} runs overlap the range: narrow it to see the rest.`),
}).meta({ id: 'Timeline', description: 'The runs of a range, one bar each, for a timeline.' });
