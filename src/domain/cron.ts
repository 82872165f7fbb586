/*
 * Cron evaluation for routine triggers. Pure: every function takes the reference time as an
 * argument. All parsing and matching is croner's; this module only adds input guards, the
 * choice of croner options, and a fast counter for catch-up.
 *
 * DST findings, croner 11.0.1 (probed with nextRun/nextRuns across the 2026 transitions of
 * America/New_York, Europe/London and Australia/Lord_Howe):
 * - croner already implements Vixie-style DST handling. "Fixed-time" jobs run once when a wall
 *   time repeats (on the first occurrence) and, when a wall time is skipped, run at the first
 *   valid instant after the gap on the same day. "Interval" jobs keep real-time cadence: they
 *   run in both passes of a repeated hour and have no instants in a skipped hour.
 * - Which jobs count as fixed-time is the `fixedTimeRule` option. The default, 'single-value',
 *   treats lists and ranges as interval jobs: `30 1,13 * * *` fired at 01:30 twice in New York on
 *   2026-11-01, and `30 2,14 * * *` dropped 02:30 on 2026-03-08 without firing at 03:00. That
 *   breaks "a fixed time of day fires exactly once on a DST day", so we pass 'no-wildcard': a job
 *   is fixed-time unless its seconds, minutes or hours contain a wildcard or a step. That is close
 *   to Vixie's rule (Vixie calls a job wild when its minute or hour field starts with `*`).
 * - Consequences pinned by tests: `*\/15 2 * * *` is an interval job (its minute is wild, as in
 *   Vixie), so it has no instants on a spring-forward day in New York. Steps without `*`
 *   (`0-59/15 2 * * *`) are interval jobs too; Vixie would call them fixed. Accepted deviation.
 * - No wrapper around croner's DST logic was needed; the option alone gives the policy.
 * - `legacyMode` is only a deprecated alias of `domAndDow` (day-of-month OR day-of-week); it has
 *   no DST effect. We keep the Vixie OR semantics (croner's default).
 * - croner does not validate the time zone when a job is built (it throws later, from nextRun),
 *   and treats '' as the host's zone, so zones are checked with Intl first.
 * - nextRun(x) is strictly after x at whole-second precision: a tick exactly at x is excluded.
 * - croner evaluates a zoned pattern at roughly 40µs per instant, far too slow to count a million
 *   missed ticks one by one; countTicks does arithmetic between offset changes instead.
 */
import { Cron, CronPattern, type CronOptions } from 'croner';

/** Longer expressions are rejected before croner sees them, so parsing stays cheap. */
export const MAX_CRON_EXPRESSION_LENGTH = 256;

/**
 * missedTicks stops counting here: `total` is exact below the cap and equals the cap when at
 * least this many ticks were missed (e.g. an every-second cron down for more than 11.5 days).
 */
export const MISSED_TICK_COUNT_CAP = 1_000_000;

/** Upper bound for nextFireTimes' count and missedTicks' limit; each instant costs croner work. */
export const MAX_ENUMERATED_TICKS = 10_000;

const CRONER_OPTIONS = {
  paused: true,
  mode: '5-or-6-parts',
  fixedTimeRule: 'no-wildcard',
  domAndDow: false,
} as const satisfies CronOptions;

/** Any 5/6-field pattern that can fire does so within croner's search range from here. */
const NEVER_FIRES_PROBE_FROM = new Date(Date.UTC(2000, 0, 1));

const SECONDS_PER_DAY = 86_400;

export type CronValidation = { ok: true } | { ok: false; message: string };

export function isValidTimeZone(tz: string): boolean {
  // Intl also rejects '', but croner would silently use the host zone for it, so be explicit.
  if (typeof tz !== 'string' || tz === '' || tz.trim() !== tz) return false;
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export function validateCron(expr: string, timezone: string): CronValidation {
  const message = describeCronProblem(expr, timezone);
  return message === null ? { ok: true } : { ok: false, message };
}

/** The next `count` fire instants strictly after `after`, oldest first. */
export function nextFireTimes(expr: string, timezone: string, after: Date, count: number): Date[] {
  assertTickCount('count', count);
  const cron = compileCron(expr, timezone);
  const fires: Date[] = [];
  let cursor = assertValidDate('after', after);
  while (fires.length < count) {
    const next = cron.nextRun(cursor);
    if (next === null) break;
    fires.push(next);
    cursor = next;
  }
  return fires;
}

export function nextFireAfter(expr: string, timezone: string, after: Date): Date | null {
  return compileCron(expr, timezone).nextRun(assertValidDate('after', after));
}

/** The latest scheduled instant not after `at` (croner walks backwards; no tick-by-tick scan). */
export function lastFireAtOrBefore(expr: string, timezone: string, at: Date): Date | null {
  const reference = new Date(assertValidDate('at', at).getTime() + 1);
  return compileCron(expr, timezone).previousRuns(1, reference)[0] ?? null;
}

export interface MissedTicks {
  /** The oldest `limit` missed instants, oldest first. */
  ticks: Date[];
  /** How many instants were missed in total, capped at MISSED_TICK_COUNT_CAP. */
  total: number;
}

/**
 * Scheduled instants t with lastScheduled < t <= now. `lastScheduled` is the last tick already
 * handled (or the trigger's creation time), so it is never returned again; `now` is included
 * because a tick due exactly now is due. Example: every-minute cron, last handled tick 11:59:00,
 * now 12:10:00 → 12:00 … 12:10, i.e. 11 ticks for "down ten minutes".
 */
export function missedTicks(
  expr: string,
  timezone: string,
  lastScheduled: Date,
  now: Date,
  limit: number,
): MissedTicks {
  assertTickCount('limit', limit);
  const cron = compileCron(expr, timezone);
  const afterMs = assertValidDate('lastScheduled', lastScheduled).getTime();
  const untilMs = assertValidDate('now', now).getTime();
  if (untilMs <= afterMs) return { ticks: [], total: 0 };

  const ticks = listTicks(cron, afterMs, untilMs, limit);
  const total = ticks.length < limit
    ? ticks.length // the list ended before the limit, so it is complete
    : countTicks(cron, fireSecondsOfDay(expr, timezone), timezone, afterMs, untilMs, MISSED_TICK_COUNT_CAP);
  return { ticks, total };
}

// ---------------------------------------------------------------------------------------------
// Validation and compilation

function describeCronProblem(expr: unknown, timezone: unknown): string | null {
  if (typeof expr !== 'string') return `Cron expression must be a string, got ${typeof expr}`;
  if (expr.length > MAX_CRON_EXPRESSION_LENGTH) {
    return `Cron expression '${expr.slice(0, 40)}…' is ${expr.length} characters long; the maximum is ${MAX_CRON_EXPRESSION_LENGTH}`;
  }
  const fieldCount = expr.trim() === '' ? 0 : expr.trim().split(/\s+/).length;
  if (fieldCount !== 5 && fieldCount !== 6) {
    return `Cron expression '${expr}' has ${fieldCount} fields; expected 5 (minute hour day-of-month month day-of-week) or 6 (seconds first)`;
  }
  if (typeof timezone !== 'string' || !isValidTimeZone(timezone)) return `Invalid time zone '${String(timezone)}'`;
  let cron: Cron;
  try {
    cron = new Cron(expr, { ...CRONER_OPTIONS, timezone });
  } catch (error) {
    return `Invalid cron expression '${expr}': ${errorMessage(error)}`;
  }
  try {
    if (cron.nextRun(NEVER_FIRES_PROBE_FROM) === null) return `Cron expression '${expr}' never fires`;
  } catch (error) {
    return `Cron expression '${expr}' cannot be evaluated in time zone '${timezone}': ${errorMessage(error)}`;
  }
  return null;
}

/** Callers are expected to have validated; an invalid trigger here is a programming error. */
/**
 * Validated, compiled patterns by (zone, expression). A paused Cron answers nextRun/previousRuns
 * without changing state, so one instance serves every trigger with the same pattern; validating
 * and compiling again on every fire cost more than the fire's SQL (10,000 triggers due at once).
 */
const compiledCrons = new Map<string, Cron>();
const COMPILED_CRONS_MAX = 10_000;

function compileCron(expr: string, timezone: string): Cron {
  const key = `${timezone}\u0000${expr}`;
  const cached = compiledCrons.get(key);
  if (cached !== undefined) return cached;
  const problem = describeCronProblem(expr, timezone);
  if (problem !== null) throw new RangeError(problem);
  const cron = new Cron(expr, { ...CRONER_OPTIONS, timezone });
  if (compiledCrons.size >= COMPILED_CRONS_MAX) compiledCrons.clear();
  compiledCrons.set(key, cron);
  return cron;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function assertValidDate(name: string, value: Date): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new RangeError(`cron: '${name}' must be a valid Date, got ${String(value)}`);
  }
  return value;
}

function assertTickCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > MAX_ENUMERATED_TICKS) {
    throw new RangeError(`cron: '${name}' must be an integer from 0 to ${MAX_ENUMERATED_TICKS}, got ${value}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Catch-up

function listTicks(cron: Cron, afterMs: number, untilMs: number, limit: number): Date[] {
  const ticks: Date[] = [];
  let cursor = new Date(afterMs);
  while (ticks.length < limit) {
    const next = cron.nextRun(cursor);
    if (next === null || next.getTime() > untilMs) break;
    ticks.push(next);
    cursor = next;
  }
  return ticks;
}

/**
 * Counts ticks in (afterMs, untilMs], stopping at `cap`. croner finds a tick; the ticks after it
 * on the same local day are then counted arithmetically up to the next offset change (or the
 * day's end), because while the offset is steady every matching wall-clock time fires exactly
 * once. The next croner call lands after the change, so croner stays the only authority on what
 * happens at a DST transition. Assumes at most one offset change per local day (true of every
 * zone in tzdb since 1970).
 */
function countTicks(
  cron: Cron,
  daySeconds: Int32Array,
  timezone: string,
  afterMs: number,
  untilMs: number,
  cap: number,
): number {
  let total = 0;
  let cursor = afterMs;
  while (total < cap) {
    const tick = cron.nextRun(new Date(cursor));
    if (tick === null || tick.getTime() > untilMs) break;
    const span = steadySpanFrom(tick.getTime(), untilMs, timezone);
    // The tick itself may be a gap substitute outside the pattern, so it is counted separately.
    total += 1 + countInRange(daySeconds, span.fromSecond, span.toSecond);
    cursor = span.lastMs;
  }
  return Math.min(total, cap);
}

interface SteadySpan {
  /** Wall-clock second of day of the span's first tick (exclusive bound for the arithmetic). */
  fromSecond: number;
  /** Wall-clock second of day of the span's last instant (inclusive bound). */
  toSecond: number;
  lastMs: number;
}

/** From a tick to the end of its local day, `untilMs`, or the last instant before an offset change. */
function steadySpanFrom(tickMs: number, untilMs: number, timezone: string): SteadySpan {
  const start = wallClock(tickMs, timezone);
  const dayEndMs = tickMs - (tickMs % 1000) + (SECONDS_PER_DAY - start.secondOfDay) * 1000;
  let lastMs = Math.min(untilMs, dayEndMs - 1);
  let end = wallClock(lastMs, timezone);
  if (end.offsetMs !== start.offsetMs) {
    lastMs = lastInstantWithOffset(tickMs, lastMs, start.offsetMs, timezone);
    end = wallClock(lastMs, timezone);
  }
  return { fromSecond: start.secondOfDay, toSecond: end.secondOfDay, lastMs };
}

/** Binary search, to the millisecond, for the last instant in [fromMs, toMs] still at `offsetMs`. */
function lastInstantWithOffset(fromMs: number, toMs: number, offsetMs: number, timezone: string): number {
  let low = fromMs; // known to have offsetMs
  let high = toMs; // known not to
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (wallClock(mid, timezone).offsetMs === offsetMs) low = mid;
    else high = mid;
  }
  return low;
}

/** Sorted wall-clock seconds of day at which the pattern's time fields match. */
function fireSecondsOfDay(expr: string, timezone: string): Int32Array {
  const pattern = new CronPattern(expr, timezone, {
    mode: CRONER_OPTIONS.mode,
    fixedTimeRule: CRONER_OPTIONS.fixedTimeRule,
  });
  const seconds: number[] = [];
  for (let hour = 0; hour < 24; hour++) {
    if (!pattern.hour[hour]) continue;
    for (let minute = 0; minute < 60; minute++) {
      if (!pattern.minute[minute]) continue;
      for (let second = 0; second < 60; second++) {
        if (pattern.second[second]) seconds.push(hour * 3600 + minute * 60 + second);
      }
    }
  }
  return Int32Array.from(seconds);
}

/** Count of values v with lowExclusive < v <= highInclusive in a sorted array. */
function countInRange(sorted: Int32Array, lowExclusive: number, highInclusive: number): number {
  return Math.max(0, upperBound(sorted, highInclusive) - upperBound(sorted, lowExclusive));
}

function upperBound(sorted: Int32Array, value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] as number) <= value) low = mid + 1;
    else high = mid;
  }
  return low;
}

// ---------------------------------------------------------------------------------------------
// Wall clock

interface WallClock {
  /** yyyymmdd of the local calendar date. */
  dateKey: number;
  secondOfDay: number;
  /** Local time minus UTC. */
  offsetMs: number;
}

const wallClockFormatters = new Map<string, Intl.DateTimeFormat>();

function wallClockFormatter(timezone: string): Intl.DateTimeFormat {
  let formatter = wallClockFormatters.get(timezone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    wallClockFormatters.set(timezone, formatter);
  }
  return formatter;
}

function wallClock(ms: number, timezone: string): WallClock {
  const fields: Record<string, number> = {};
  for (const part of wallClockFormatter(timezone).formatToParts(ms)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const { year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0 } = fields;
  const wholeSecondMs = ms - (((ms % 1000) + 1000) % 1000);
  return {
    dateKey: year * 10_000 + month * 100 + day,
    secondOfDay: hour * 3600 + minute * 60 + second,
    offsetMs: Date.UTC(year, month - 1, day, hour, minute, second) - wholeSecondMs,
  };
}
