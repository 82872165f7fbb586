import { describe, expect, it } from 'vitest';
import { assignLanes } from '../../dashboard/src/chart/lanes.js';
import { wakeupsRange } from '../../dashboard/src/chart/time.js';
import { MAX_BUCKETS, bucketStarts, isRangeProblem, statsRange, timelineRange, wakeupSeries, type TimeRange } from '../../src/domain/stats.js';

const NOW = Date.UTC(2026, 10, 30, 15, 7, 42, 500);
const MINUTE = 60_000;

describe('the ranges of the charts', () => {
  it('defaults to the last 60 minutes, 60 hours or 30 days before now, the start rounded down to its bucket', () => {
    expect(statsRange({ bucket: 'minute' }, NOW)).toEqual({ from: Date.UTC(2026, 10, 30, 14, 7), to: NOW });
    expect(statsRange({ bucket: 'day' }, NOW)).toEqual({ from: Date.UTC(2026, 9, 31), to: NOW });
    expect(timelineRange({}, NOW)).toEqual({ from: NOW - 24 * 60 * MINUTE, to: NOW });
  });

  it('refuses a range that ends before it starts, naming to, and one over the bucket limit, naming from', () => {
    const reversed = statsRange({ bucket: 'minute', from: '2026-11-30T15:00:00Z', to: '2026-11-30T14:00:00Z' }, NOW);
    expect(isRangeProblem(reversed) && reversed.field).toBe('to');
    const from = '2026-11-29T00:00:00Z';
    const atLimit = statsRange({ bucket: 'minute', from, to: new Date(Date.parse(from) + MAX_BUCKETS * MINUTE).toISOString() }, NOW);
    expect(isRangeProblem(atLimit)).toBe(false);
    const over = statsRange({ bucket: 'minute', from, to: new Date(Date.parse(from) + MAX_BUCKETS * MINUTE + 1).toISOString() }, NOW);
    expect(isRangeProblem(over) && over.field).toBe('from');
    const year = timelineRange({ from: '2025-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, NOW);
    expect(isRangeProblem(year) && year.field).toBe('from');
  });

  it('gives every bucket of the range, zeros included, and adds the counts to theirs', () => {
    const range = { from: Date.UTC(2026, 10, 30, 15, 0), to: Date.UTC(2026, 10, 30, 15, 2, 30) };
    expect(bucketStarts(range, 'minute')).toEqual([range.from, range.from + MINUTE, range.from + 2 * MINUTE]);
    const series = wakeupSeries(range, 'minute', [
      { bucket: range.from + MINUTE, status: 'finished', count: 3 },
      { bucket: range.from + MINUTE, status: 'failed', count: 1 },
    ]);
    expect(series.map((p) => [p.starts_at - range.from, p.finished, p.failed, p.skipped])).toEqual([[0, 0, 0, 0], [MINUTE, 3, 1, 0], [2 * MINUTE, 0, 0, 0]]);
  });
});

describe('the range the wakeups chart asks for', () => {
  const HOUR = 60 * MINUTE;
  const SPANS = [['hour', HOUR], ['day', 24 * HOUR]] as const;
  const minuteStart = Date.UTC(2026, 10, 30, 15, 7);
  // Times the page can read its clock at: a minute's first and last milliseconds, and between.
  const nows = [minuteStart, minuteStart + 1, minuteStart + 30_000, minuteStart + MINUTE - 1];
  // How much later the server reads its own: the request's way there, a browser clock some seconds
  // behind the server's, a page clock read a minute before.
  const lags = [0, 1, 250, 5_000, MINUTE - 1, MINUTE + 3_000];
  const at = (now: number, lag: number) => `page at ${new Date(now).toISOString()}, server ${lag} ms later`;

  it.each(SPANS)('is accepted for the last %s whenever the server reads its clock, even in the next minute', (_span, spanMs) => {
    for (const now of nows) {
      for (const lag of lags) {
        const range = statsRange({ bucket: 'minute', ...wakeupsRange(now, spanMs) }, now + lag);
        if (isRangeProblem(range)) expect.fail(`${at(now, lag)}: 400 on ${range.field}: ${range.message}`);
      }
    }
  });

  it.each(SPANS)('holds the %s\'s minutes, the last the one the page is in', (_span, spanMs) => {
    for (const now of nows) {
      for (const lag of lags) {
        const range = statsRange({ bucket: 'minute', ...wakeupsRange(now, spanMs) }, now + lag) as TimeRange;
        const starts = bucketStarts(range, 'minute');
        expect(starts, at(now, lag)).toHaveLength(spanMs / MINUTE);
        expect(starts.at(-1), at(now, lag)).toBe(Math.floor(now / MINUTE) * MINUTE);
      }
    }
  });
});

describe('the timeline lanes', () => {
  it('puts overlapping runs on separate lanes and reuses a lane once its run ended', () => {
    const lanes = assignLanes([{ start: 0, end: 10 }, { start: 5, end: 20 }, { start: 10, end: 12 }, { start: 21, end: 30 }]);
    expect(lanes.map((l) => l.lane)).toEqual([0, 1, 0, 0]);
  });
});
