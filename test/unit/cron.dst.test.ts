import { describe, expect, it } from 'vitest';
import { missedTicks, nextFireAfter, nextFireTimes } from '../../src/domain/cron.js';

/** Fire instants in [fromIso, toIso), as ISO strings. */
function firesBetween(expr: string, timezone: string, fromIso: string, toIso: string): string[] {
  const justBefore = new Date(Date.parse(fromIso) - 1);
  const lastIncluded = new Date(Date.parse(toIso) - 1);
  return missedTicks(expr, timezone, justBefore, lastIncluded, 10_000).ticks.map((d) => d.toISOString());
}

function utcOffset(timezone: string, iso: string): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: timezone, timeZoneName: 'longOffset' }).formatToParts(
    new Date(iso),
  );
  const offset = parts.find((part) => part.type === 'timeZoneName')?.value ?? '';
  // ICU versions differ on whether a zero offset prints as 'GMT' or 'GMT+00:00'.
  return offset === 'GMT' ? 'GMT+00:00' : offset;
}

function wallTime(timezone: string, iso: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).format(new Date(iso));
}

function gapsInMinutes(isoInstants: string[]): number[] {
  return isoInstants.slice(1).map((iso, i) => (Date.parse(iso) - Date.parse(isoInstants[i] as string)) / 60_000);
}

const NY = 'America/New_York';
// Local calendar days as UTC windows [start, end).
const NY_SPRING_DAY = ['2026-03-08T05:00:00.000Z', '2026-03-09T04:00:00.000Z'] as const; // 23 h
const NY_FALL_DAY = ['2026-11-01T04:00:00.000Z', '2026-11-02T05:00:00.000Z'] as const; // 25 h

describe('America/New_York (spring 2026-03-08, fall 2026-11-01)', () => {
  it('has the transitions on the expected instants', () => {
    expect(utcOffset(NY, '2026-03-08T06:59:59Z')).toBe('GMT-05:00');
    expect(utcOffset(NY, '2026-03-08T07:00:00Z')).toBe('GMT-04:00');
    expect(utcOffset(NY, '2026-11-01T05:59:59Z')).toBe('GMT-04:00');
    expect(utcOffset(NY, '2026-11-01T06:00:00Z')).toBe('GMT-05:00');
  });

  it('fires a fixed time skipped by spring-forward once, at the first valid instant (03:00 EDT)', () => {
    expect(firesBetween('30 2 * * *', NY, ...NY_SPRING_DAY)).toEqual(['2026-03-08T07:00:00.000Z']);
    expect(wallTime(NY, '2026-03-08T07:00:00Z')).toBe('2026-03-08, 03:00:00');
  });

  it('returns to the normal time the day after spring-forward', () => {
    const fires = nextFireTimes('30 2 * * *', NY, new Date('2026-03-07T00:00:00Z'), 3).map((d) => d.toISOString());
    expect(fires).toEqual(['2026-03-07T07:30:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z']);
  });

  it('fires a fixed time repeated by fall-back once, on the first (EDT) occurrence', () => {
    expect(firesBetween('30 1 * * *', NY, ...NY_FALL_DAY)).toEqual(['2026-11-01T05:30:00.000Z']);
    expect(nextFireAfter('30 1 * * *', NY, new Date('2026-11-01T05:30:00Z'))?.toISOString()).toBe(
      '2026-11-02T06:30:00.000Z',
    );
  });

  it('treats hour lists as fixed times too (Vixie): once each on both DST days', () => {
    expect(firesBetween('30 1,13 * * *', NY, ...NY_FALL_DAY)).toEqual([
      '2026-11-01T05:30:00.000Z',
      '2026-11-01T18:30:00.000Z',
    ]);
    expect(firesBetween('30 2,14 * * *', NY, ...NY_SPRING_DAY)).toEqual([
      '2026-03-08T07:00:00.000Z',
      '2026-03-08T18:30:00.000Z',
    ]);
  });

  it('applies the fixed-time rule to six-field expressions', () => {
    expect(firesBetween('15 30 2 * * *', NY, ...NY_SPRING_DAY)).toEqual(['2026-03-08T07:00:00.000Z']);
  });

  it('keeps */30 on a 30-minute real-time cadence: 50 fires in the 25-hour fall-back day', () => {
    const fires = firesBetween('*/30 * * * *', NY, ...NY_FALL_DAY);
    expect(fires).toHaveLength(50);
    expect(fires[0]).toBe('2026-11-01T04:00:00.000Z');
    expect(fires.at(-1)).toBe('2026-11-02T04:30:00.000Z');
    expect(new Set(gapsInMinutes(fires))).toEqual(new Set([30]));
    // Both 01:30s fire.
    expect(fires).toContain('2026-11-01T05:30:00.000Z');
    expect(fires).toContain('2026-11-01T06:30:00.000Z');
  });

  it('keeps */30 on cadence through spring-forward: 46 fires, none invented in the gap', () => {
    const fires = firesBetween('*/30 * * * *', NY, ...NY_SPRING_DAY);
    expect(fires).toHaveLength(46);
    expect(new Set(gapsInMinutes(fires))).toEqual(new Set([30]));
    expect(fires.slice(2, 6)).toEqual([
      '2026-03-08T06:00:00.000Z', // 01:00 EST
      '2026-03-08T06:30:00.000Z', // 01:30 EST
      '2026-03-08T07:00:00.000Z', // 03:00 EDT
      '2026-03-08T07:30:00.000Z', // 03:30 EDT
    ]);
  });

  it('fires an hourly job 25 times on fall-back and 23 times on spring-forward', () => {
    expect(firesBetween('0 * * * *', NY, ...NY_FALL_DAY)).toHaveLength(25);
    expect(firesBetween('0 * * * *', NY, ...NY_SPRING_DAY)).toHaveLength(23);
  });

  it('gives an hour-step job no substitute for the skipped 02:30', () => {
    expect(firesBetween('30 */2 * * *', NY, ...NY_SPRING_DAY)).toEqual([
      '2026-03-08T05:30:00.000Z', // 00:30 EST
      '2026-03-08T08:30:00.000Z', // 04:30 EDT
      '2026-03-08T10:30:00.000Z',
      '2026-03-08T12:30:00.000Z',
      '2026-03-08T14:30:00.000Z',
      '2026-03-08T16:30:00.000Z',
      '2026-03-08T18:30:00.000Z',
      '2026-03-08T20:30:00.000Z',
      '2026-03-08T22:30:00.000Z',
      '2026-03-09T00:30:00.000Z',
      '2026-03-09T02:30:00.000Z', // 22:30 EDT
    ]);
  });

  it('gives an hour-step job 12 fires on fall-back (its hours are even, so 01:xx never repeats)', () => {
    const fires = firesBetween('30 */2 * * *', NY, ...NY_FALL_DAY);
    expect(fires).toHaveLength(12);
    expect(fires.slice(0, 2)).toEqual(['2026-11-01T04:30:00.000Z', '2026-11-01T07:30:00.000Z']);
  });

  it('treats a wild minute in a fixed hour as an interval job (Vixie: minute starts with *)', () => {
    expect(firesBetween('*/15 2 * * *', NY, ...NY_SPRING_DAY)).toEqual([]);
    expect(firesBetween('*/15 1 * * *', NY, ...NY_FALL_DAY)).toEqual([
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T05:15:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-01T05:45:00.000Z',
      '2026-11-01T06:00:00.000Z',
      '2026-11-01T06:15:00.000Z',
      '2026-11-01T06:30:00.000Z',
      '2026-11-01T06:45:00.000Z',
    ]);
  });
});

const LONDON = 'Europe/London';
const LONDON_SPRING_DAY = ['2026-03-29T00:00:00.000Z', '2026-03-29T23:00:00.000Z'] as const;
const LONDON_FALL_DAY = ['2026-10-24T23:00:00.000Z', '2026-10-26T00:00:00.000Z'] as const;

describe('Europe/London (spring 2026-03-29, fall 2026-10-25)', () => {
  it('has the transitions on the expected instants', () => {
    expect(utcOffset(LONDON, '2026-03-29T00:59:59Z')).toBe('GMT+00:00');
    expect(utcOffset(LONDON, '2026-03-29T01:00:00Z')).toBe('GMT+01:00');
    expect(utcOffset(LONDON, '2026-10-25T00:59:59Z')).toBe('GMT+01:00');
    expect(utcOffset(LONDON, '2026-10-25T01:00:00Z')).toBe('GMT+00:00');
  });

  it('fires 01:30 (skipped) once at 02:00 BST on spring-forward', () => {
    expect(firesBetween('30 1 * * *', LONDON, ...LONDON_SPRING_DAY)).toEqual(['2026-03-29T01:00:00.000Z']);
  });

  it('fires 01:30 (repeated) once, at 01:30 BST, on fall-back', () => {
    expect(firesBetween('30 1 * * *', LONDON, ...LONDON_FALL_DAY)).toEqual(['2026-10-25T00:30:00.000Z']);
  });

  it('fires */30 48 ± 2 times across the transitions', () => {
    expect(firesBetween('*/30 * * * *', LONDON, ...LONDON_SPRING_DAY)).toHaveLength(46);
    expect(firesBetween('*/30 * * * *', LONDON, ...LONDON_FALL_DAY)).toHaveLength(50);
  });

  it('fires a job at 09:00 once on each DST day, at 09:00 local', () => {
    expect(firesBetween('0 9 * * *', LONDON, ...LONDON_SPRING_DAY)).toEqual(['2026-03-29T08:00:00.000Z']);
    expect(firesBetween('0 9 * * *', LONDON, ...LONDON_FALL_DAY)).toEqual(['2026-10-25T09:00:00.000Z']);
  });
});

const LORD_HOWE = 'Australia/Lord_Howe';
// Back 30 min at 02:00 (+11 → +10:30): 2026-04-05 is 24.5 h long and 01:30–02:00 repeats.
const LORD_HOWE_FALL_DAY = ['2026-04-04T13:00:00.000Z', '2026-04-05T13:30:00.000Z'] as const;
// Forward 30 min at 02:00 (+10:30 → +11): 2026-10-04 is 23.5 h long and 02:00–02:30 is skipped.
const LORD_HOWE_SPRING_DAY = ['2026-10-03T13:30:00.000Z', '2026-10-04T13:00:00.000Z'] as const;

describe('Australia/Lord_Howe (30-minute DST shift)', () => {
  it('shifts back 30 minutes at 02:00 on 2026-04-05 and forward at 02:00 on 2026-10-04', () => {
    expect(utcOffset(LORD_HOWE, '2026-04-04T14:59:59Z')).toBe('GMT+11:00');
    expect(wallTime(LORD_HOWE, '2026-04-04T14:59:59Z')).toBe('2026-04-05, 01:59:59');
    expect(utcOffset(LORD_HOWE, '2026-04-04T15:00:00Z')).toBe('GMT+10:30');
    expect(wallTime(LORD_HOWE, '2026-04-04T15:00:00Z')).toBe('2026-04-05, 01:30:00');

    expect(utcOffset(LORD_HOWE, '2026-10-03T15:29:59Z')).toBe('GMT+10:30');
    expect(wallTime(LORD_HOWE, '2026-10-03T15:29:59Z')).toBe('2026-10-04, 01:59:59');
    expect(utcOffset(LORD_HOWE, '2026-10-03T15:30:00Z')).toBe('GMT+11:00');
    expect(wallTime(LORD_HOWE, '2026-10-03T15:30:00Z')).toBe('2026-10-04, 02:30:00');
  });

  it('fires a repeated 01:45 once, on the first (+11) occurrence', () => {
    expect(firesBetween('45 1 * * *', LORD_HOWE, ...LORD_HOWE_FALL_DAY)).toEqual(['2026-04-04T14:45:00.000Z']);
  });

  it('fires 01:15, which the half-hour shift does not repeat, once', () => {
    expect(firesBetween('15 1 * * *', LORD_HOWE, ...LORD_HOWE_FALL_DAY)).toEqual(['2026-04-04T14:15:00.000Z']);
  });

  it('fires a skipped 02:15 once at 02:30 (+11), the end of the gap', () => {
    expect(firesBetween('15 2 * * *', LORD_HOWE, ...LORD_HOWE_SPRING_DAY)).toEqual(['2026-10-03T15:30:00.000Z']);
  });

  it('fires 02:45, just after the gap, at its own time', () => {
    expect(firesBetween('45 2 * * *', LORD_HOWE, ...LORD_HOWE_SPRING_DAY)).toEqual(['2026-10-03T15:45:00.000Z']);
  });

  it('keeps */15 on a 15-minute real-time cadence: 98 fires in 24.5 h, 94 in 23.5 h', () => {
    const fall = firesBetween('*/15 * * * *', LORD_HOWE, ...LORD_HOWE_FALL_DAY);
    expect(fall).toHaveLength(98);
    expect(new Set(gapsInMinutes(fall))).toEqual(new Set([15]));
    const spring = firesBetween('*/15 * * * *', LORD_HOWE, ...LORD_HOWE_SPRING_DAY);
    expect(spring).toHaveLength(94);
    expect(new Set(gapsInMinutes(spring))).toEqual(new Set([15]));
  });

  it('fires the half-hourly */30 49 and 47 times on the two DST days', () => {
    expect(firesBetween('*/30 * * * *', LORD_HOWE, ...LORD_HOWE_FALL_DAY)).toHaveLength(49);
    expect(firesBetween('*/30 * * * *', LORD_HOWE, ...LORD_HOWE_SPRING_DAY)).toHaveLength(47);
  });
});

describe('Asia/Kolkata (no DST)', () => {
  const KOLKATA = 'Asia/Kolkata';

  it('fires 02:30 IST every 24 hours all year, including on other zones’ DST days', () => {
    const fires = nextFireTimes('30 2 * * *', KOLKATA, new Date('2025-12-31T18:30:00Z'), 365).map((d) =>
      d.toISOString(),
    );
    expect(fires[0]).toBe('2025-12-31T21:00:00.000Z');
    expect(fires.at(-1)).toBe('2026-12-30T21:00:00.000Z');
    expect(new Set(gapsInMinutes(fires))).toEqual(new Set([24 * 60]));
  });

  it('fires */30 48 times on every day, e.g. New York’s fall-back day', () => {
    expect(firesBetween('*/30 * * * *', KOLKATA, '2026-10-31T18:30:00.000Z', '2026-11-01T18:30:00.000Z')).toHaveLength(
      48,
    );
  });
});
