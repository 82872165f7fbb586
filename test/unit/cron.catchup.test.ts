import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_CRON_EXPRESSION_LENGTH,
  MAX_ENUMERATED_TICKS,
  MISSED_TICK_COUNT_CAP,
  isValidTimeZone,
  missedTicks,
  nextFireAfter,
  nextFireTimes,
  validateCron,
} from '../../src/domain/cron.js';

const at = (iso: string) => new Date(iso);
const isoList = (dates: Date[]) => dates.map((d) => d.toISOString());

describe('validateCron', () => {
  it('accepts five fields, and six with seconds first', () => {
    expect(validateCron('* * * * *', 'UTC')).toEqual({ ok: true });
    expect(validateCron('*/2 * * * * *', 'UTC')).toEqual({ ok: true });
    expect(validateCron('0 9 * * MON-FRI', 'Europe/London')).toEqual({ ok: true });
  });

  it('rejects seven fields, naming the expression', () => {
    expect(validateCron('0 0 9 * * * 2026', 'UTC')).toEqual({
      ok: false,
      message:
        "Cron expression '0 0 9 * * * 2026' has 7 fields; expected 5 (minute hour day-of-month month day-of-week) or 6 (seconds first)",
    });
  });

  it('rejects other field counts, including blank and nicknames', () => {
    expect(validateCron('* * * *', 'UTC')).toMatchObject({ ok: false, message: expect.stringContaining('has 4 fields') });
    expect(validateCron('   ', 'UTC')).toMatchObject({ ok: false, message: expect.stringContaining('has 0 fields') });
    expect(validateCron('@daily', 'UTC')).toMatchObject({ ok: false, message: expect.stringContaining("'@daily' has 1 fields") });
  });

  it("passes croner's message through, prefixed with the expression", () => {
    expect(validateCron('61 * * * *', 'UTC')).toEqual({
      ok: false,
      message: "Invalid cron expression '61 * * * *': CronPattern: Invalid value for minute: 61",
    });
    expect(validateCron('a b c d e', 'UTC')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^Invalid cron expression 'a b c d e': CronPattern: .*illegal characters/),
    });
  });

  it('rejects an expression that can never fire', () => {
    expect(validateCron('0 0 30 2 *', 'UTC')).toEqual({ ok: false, message: "Cron expression '0 0 30 2 *' never fires" });
  });

  it('rejects invalid time zones by name, including the empty zone croner would read as host time', () => {
    expect(validateCron('* * * * *', 'Nowhere/City')).toEqual({ ok: false, message: "Invalid time zone 'Nowhere/City'" });
    expect(validateCron('* * * * *', '')).toEqual({ ok: false, message: "Invalid time zone ''" });
    expect(validateCron('* * * * *', '+02:00')).toEqual({ ok: false, message: "Invalid time zone '+02:00'" });
  });

  it('answers huge expressions with a message instead of throwing', () => {
    const huge = `${'1,'.repeat(5_000)}2 * * * *`;
    const result = validateCron(huge, 'UTC');
    expect(result).toEqual({
      ok: false,
      message: `Cron expression '${huge.slice(0, 40)}…' is ${huge.length} characters long; the maximum is ${MAX_CRON_EXPRESSION_LENGTH}`,
    });
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.constantFrom('UTC', 'Nowhere/City', ''), (expr, tz) => {
        const result = validateCron(expr, tz);
        expect(typeof result.ok).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });
});

describe('isValidTimeZone', () => {
  it('accepts IANA zones and rejects everything else', () => {
    expect(isValidTimeZone('America/New_York')).toBe(true);
    expect(isValidTimeZone('Australia/Lord_Howe')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus_Mons')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
    expect(isValidTimeZone(' Europe/London')).toBe(false);
  });
});

describe('nextFireTimes / nextFireAfter', () => {
  it('returns instants strictly after the reference', () => {
    expect(isoList(nextFireTimes('* * * * *', 'UTC', at('2026-01-01T12:00:00Z'), 3))).toEqual([
      '2026-01-01T12:01:00.000Z',
      '2026-01-01T12:02:00.000Z',
      '2026-01-01T12:03:00.000Z',
    ]);
    expect(nextFireAfter('* * * * *', 'UTC', at('2026-01-01T11:59:59.999Z'))?.toISOString()).toBe(
      '2026-01-01T12:00:00.000Z',
    );
    expect(nextFireAfter('* * * * *', 'UTC', at('2026-01-01T12:00:00.500Z'))?.toISOString()).toBe(
      '2026-01-01T12:01:00.000Z',
    );
  });

  it('runs a six-field seconds cron every two seconds', () => {
    expect(isoList(nextFireTimes('*/2 * * * * *', 'UTC', at('2026-01-01T12:00:00Z'), 4))).toEqual([
      '2026-01-01T12:00:02.000Z',
      '2026-01-01T12:00:04.000Z',
      '2026-01-01T12:00:06.000Z',
      '2026-01-01T12:00:08.000Z',
    ]);
  });

  it('evaluates in the given zone', () => {
    expect(nextFireAfter('0 9 * * *', 'Asia/Kolkata', at('2026-04-25T00:00:00Z'))?.toISOString()).toBe(
      '2026-04-25T03:30:00.000Z',
    );
  });

  it('returns an empty list for count 0 and throws on invalid input, naming it', () => {
    expect(nextFireTimes('* * * * *', 'UTC', at('2026-01-01T00:00:00Z'), 0)).toEqual([]);
    expect(() => nextFireTimes('* * * * *', 'UTC', at('2026-01-01T00:00:00Z'), -1)).toThrow(/'count'.*got -1/);
    expect(() => nextFireAfter('61 * * * *', 'UTC', at('2026-01-01T00:00:00Z'))).toThrow(
      "Invalid cron expression '61 * * * *'",
    );
    expect(() => nextFireAfter('* * * * *', 'UTC', new Date(Number.NaN))).toThrow(/'after' must be a valid Date/);
  });
});

describe('missedTicks', () => {
  // Interpretation: lastScheduled is the last tick already handled. Down for ten minutes means
  // the 11:59 tick ran, the process died, and it is back at 12:10; 12:00 … 12:10 are all due.
  it('gives 11 ticks for an every-minute cron down 10 minutes (11:59 handled, now 12:10)', () => {
    const result = missedTicks('* * * * *', 'UTC', at('2026-01-01T11:59:00Z'), at('2026-01-01T12:10:00Z'), 100);
    expect(result.total).toBe(11);
    expect(result.ticks).toHaveLength(11);
    expect(result.ticks[0]?.toISOString()).toBe('2026-01-01T12:00:00.000Z');
    expect(result.ticks.at(-1)?.toISOString()).toBe('2026-01-01T12:10:00.000Z');
  });

  it('returns the oldest 5 ticks and counts all 101 when 100 minutes down with limit 5', () => {
    const result = missedTicks('* * * * *', 'UTC', at('2026-01-01T11:59:00Z'), at('2026-01-01T13:40:00Z'), 5);
    expect(isoList(result.ticks)).toEqual([
      '2026-01-01T12:00:00.000Z',
      '2026-01-01T12:01:00.000Z',
      '2026-01-01T12:02:00.000Z',
      '2026-01-01T12:03:00.000Z',
      '2026-01-01T12:04:00.000Z',
    ]);
    expect(result.total).toBe(101);
  });

  it('counts without listing when limit is 0', () => {
    expect(missedTicks('* * * * *', 'UTC', at('2026-01-01T11:59:00Z'), at('2026-01-01T13:40:00Z'), 0)).toEqual({
      ticks: [],
      total: 101,
    });
  });

  it('starts at the first tick after a creation time that is not on a tick', () => {
    const result = missedTicks('* * * * *', 'UTC', at('2026-01-01T11:59:30Z'), at('2026-01-01T12:02:45.500Z'), 10);
    expect(isoList(result.ticks)).toEqual([
      '2026-01-01T12:00:00.000Z',
      '2026-01-01T12:01:00.000Z',
      '2026-01-01T12:02:00.000Z',
    ]);
    expect(result.total).toBe(3);
  });

  it('finds nothing when now is not after lastScheduled', () => {
    expect(missedTicks('* * * * *', 'UTC', at('2026-01-01T12:00:00Z'), at('2026-01-01T12:00:00Z'), 10)).toEqual({
      ticks: [],
      total: 0,
    });
    expect(missedTicks('* * * * *', 'UTC', at('2026-01-01T12:00:00Z'), at('2026-01-01T11:00:00Z'), 10)).toEqual({
      ticks: [],
      total: 0,
    });
  });

  it('counts a six-field seconds cron: 30 ticks of */2 in one minute', () => {
    const result = missedTicks('*/2 * * * * *', 'UTC', at('2026-01-01T12:00:00Z'), at('2026-01-01T12:01:00Z'), 3);
    expect(isoList(result.ticks)).toEqual([
      '2026-01-01T12:00:02.000Z',
      '2026-01-01T12:00:04.000Z',
      '2026-01-01T12:00:06.000Z',
    ]);
    expect(result.total).toBe(30);
  });

  it('counts a year of every-minute ticks in New York exactly (the 23 h and 25 h days cancel)', () => {
    const result = missedTicks('* * * * *', 'America/New_York', at('2026-01-01T05:00:00Z'), at('2027-01-01T05:00:00Z'), 0);
    expect(result.total).toBe(365 * 24 * 60);
  });

  it('counts every second of the 24.5-hour Lord Howe fall-back day', () => {
    const result = missedTicks(
      '* * * * * *',
      'Australia/Lord_Howe',
      at('2026-04-04T12:59:59Z'),
      at('2026-04-05T13:29:59Z'),
      0,
    );
    expect(result.total).toBe(24.5 * 3600);
  });

  it(`stops counting at MISSED_TICK_COUNT_CAP (${MISSED_TICK_COUNT_CAP}) quickly`, () => {
    const startedAt = performance.now();
    // Twelve days of seconds is 1,036,800 ticks, more than the cap.
    const result = missedTicks('* * * * * *', 'Europe/London', at('2026-03-20T00:00:00Z'), at('2026-04-01T00:00:00Z'), 2);
    expect(result.total).toBe(MISSED_TICK_COUNT_CAP);
    expect(result.ticks).toHaveLength(2);
    expect(performance.now() - startedAt).toBeLessThan(2_000);
  });

  it('rejects a limit outside 0..MAX_ENUMERATED_TICKS', () => {
    expect(() => missedTicks('* * * * *', 'UTC', at('2026-01-01T00:00:00Z'), at('2026-01-02T00:00:00Z'), 1.5)).toThrow(
      /'limit'/,
    );
    expect(() =>
      missedTicks('* * * * *', 'UTC', at('2026-01-01T00:00:00Z'), at('2026-01-02T00:00:00Z'), MAX_ENUMERATED_TICKS + 1),
    ).toThrow(/'limit'/);
  });

  // The fast counter reasons about whole days; croner's tick-by-tick listing is the reference.
  it('counts exactly what croner lists, across DST transitions', () => {
    const expressions = [
      '* * * * *',
      '*/7 * * * *',
      '30 2 * * *',
      '30 1 * * *',
      '45 1,2 * * *',
      '0 2,3 * * *',
      '*/15 1-2 * * *',
      '30 */2 * * *',
      '0 0 * * *',
      '15 2 * * 0',
      '0 0-59/20 * * * *',
      '*/10 * 1-3 * * *',
      '10 30 1 * * *',
      '0 9 1,15 * MON',
    ];
    const transitions: Array<[string, string]> = [
      ['America/New_York', '2026-03-08T07:00:00Z'],
      ['America/New_York', '2026-11-01T06:00:00Z'],
      ['Europe/London', '2026-03-29T01:00:00Z'],
      ['Europe/London', '2026-10-25T01:00:00Z'],
      ['Australia/Lord_Howe', '2026-04-04T15:00:00Z'],
      ['Australia/Lord_Howe', '2026-10-03T15:30:00Z'],
      ['Asia/Kolkata', '2026-03-08T07:00:00Z'],
    ];
    const hour = 3_600_000;
    fc.assert(
      fc.property(
        fc.constantFrom(...expressions),
        fc.constantFrom(...transitions),
        fc.integer({ min: -30 * hour, max: 6 * hour }),
        fc.integer({ min: 0, max: 40 * hour }),
        (expr, [timezone, transitionIso], startOffsetMs, lengthMs) => {
          const after = new Date(Date.parse(transitionIso) + startOffsetMs);
          const now = new Date(after.getTime() + lengthMs);
          const listed = missedTicks(expr, timezone, after, now, MAX_ENUMERATED_TICKS);
          expect(listed.ticks.length).toBeLessThan(MAX_ENUMERATED_TICKS);
          const counted = missedTicks(expr, timezone, after, now, 0);
          expect(counted.total).toBe(listed.ticks.length);
        },
      ),
      { numRuns: 150, seed: 20260308 },
    );
  });
});
