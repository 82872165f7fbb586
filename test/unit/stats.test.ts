import { describe, expect, it } from 'vitest';
import { assignLanes } from '../../dashboard/src/chart/lanes.js';
import { MAX_BUCKETS, bucketStarts, isRangeProblem, statsRange, timelineRange, wakeupSeries } from '../../src/domain/stats.js';

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

describe('the timeline lanes', () => {
  it('puts overlapping runs on separate lanes and reuses a lane once its run ended', () => {
    const lanes = assignLanes([{ start: 0, end: 10 }, { start: 5, end: 20 }, { start: 10, end: 12 }, { start: 21, end: 30 }]);
    expect(lanes.map((l) => l.lane)).toEqual([0, 1, 0, 0]);
  });
});
