import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  RATE_LIMIT_BUFFER_SEC_DEFAULT,
  isRateLimitError,
  parseRateLimitReset,
} from '../../src/domain/rateLimit.js';

const NOW = new Date('2026-01-15T03:45:00Z');
const BUFFER_MS = 30_000;

function withBuffer(date: Date | null): string | null {
  return date === null ? null : new Date(date.getTime() + BUFFER_MS).toISOString();
}

describe('RATE_LIMIT_BUFFER_SEC_DEFAULT', () => {
  it('is 30 seconds', () => {
    expect(RATE_LIMIT_BUFFER_SEC_DEFAULT).toBe(30);
  });
});

describe('isRateLimitError', () => {
  it.each([
    '429 Too Many Requests',
    'Quota exceeded for today',
    'HTTP 429',
    'status=429',
    'request failed (429)',
    'Error: got HTTP 429.',
    'rate_limit_error: resets at 4:00 AM UTC',
    'rate limit reached for requests',
    'You have been rate limited',
    'Rate limits apply to this workspace',
    'rate-limit exceeded',
    'RATELIMIT hit',
    'anthropic.RateLimitError: Error code: 429',
    '{"reason":"userRateLimitExceeded"}',
    'too_many_requests',
    'TooManyRequestsException',
    'QUOTA_EXCEEDED',
  ])('detects %j as a rate limit', (text) => {
    expect(isRateLimitError(text)).toBe(true);
  });

  it.each([
    'connection timed out after 30s',
    'unrated content',
    'order 14290 failed',
    'user id 54291 not found',
    'build 1429 broke',
    'took 429ms',
    'version 1.429 is deprecated',
    'separate limits apply to each project',
    'separateLimit config missing',
    'generated 0 tokens',
    '',
  ])('does not treat %j as a rate limit', (text) => {
    expect(isRateLimitError(text)).toBe(false);
  });
});

describe('parseRateLimitReset', () => {
  describe('rate limit with parsed reset time (spec vectors, now 03:45 UTC, buffer 30 s)', () => {
    it('resets at 4:00 AM schedules 04:00:30', () => {
      expect(withBuffer(parseRateLimitReset('rate limit resets at 4:00 AM', NOW))).toBe(
        '2026-01-15T04:00:30.000Z',
      );
    });

    it('resets at 3:00 AM (already past today) schedules tomorrow 03:00:30', () => {
      expect(withBuffer(parseRateLimitReset('resets at 3:00 AM', NOW))).toBe(
        '2026-01-16T03:00:30.000Z',
      );
    });

    it('Retry-After: 3600 schedules now + 3630 s', () => {
      expect(withBuffer(parseRateLimitReset('Retry-After: 3600', NOW))).toBe(
        new Date(NOW.getTime() + 3_630_000).toISOString(),
      );
    });

    it('"Please try again in 5 minutes" schedules now + 5m30s', () => {
      expect(withBuffer(parseRateLimitReset('Please try again in 5 minutes', NOW))).toBe(
        '2026-01-15T03:50:30.000Z',
      );
    });

    it.each(['reset_time: 1752624000', 'reset_time: 1752624000000'])(
      '%s (epoch seconds or milliseconds) schedules 1752624030 s',
      (text) => {
        const resetAt = parseRateLimitReset(text, NOW);
        expect(resetAt?.getTime()).toBe(1_752_624_000_000);
        expect(withBuffer(resetAt)).toBe(new Date(1_752_624_030_000).toISOString());
      },
    );

    it('rate_limit_error: resets at 4:00 AM UTC at 03:45 UTC schedules 04:00:30 UTC', () => {
      expect(
        withBuffer(parseRateLimitReset('rate_limit_error: resets at 4:00 AM UTC', NOW)),
      ).toBe('2026-01-15T04:00:30.000Z');
    });
  });

  describe('absolute "resets at" clock times (UTC)', () => {
    it.each([
      ['reset at 4:00 am', '2026-01-15T04:00:00.000Z'],
      ['resets at 4:00:15 PM', '2026-01-15T16:00:15.000Z'],
      ['resets at 16:00', '2026-01-15T16:00:00.000Z'],
      ['resets at 16:00 UTC', '2026-01-15T16:00:00.000Z'],
      ['resets at 12:30 AM', '2026-01-16T00:30:00.000Z'],
      ['resets at 12:30 PM', '2026-01-15T12:30:00.000Z'],
      ['resets at 3:45 AM', '2026-01-16T03:45:00.000Z'], // exactly now -> next day
      ['resets at 0:00', '2026-01-16T00:00:00.000Z'],
    ])('%s -> %s', (text, expected) => {
      expect(parseRateLimitReset(text, NOW)?.toISOString()).toBe(expected);
    });

    it('uses the UTC day of now even when it is late in the UTC day', () => {
      const lateNow = new Date('2026-01-15T23:59:00Z');
      expect(parseRateLimitReset('resets at 11:59:30 PM', lateNow)?.toISOString()).toBe(
        '2026-01-15T23:59:30.000Z',
      );
    });

    it.each(['resets at 13:00 PM', 'resets at 0:30 AM', 'resets at 24:00', 'resets at 4:60 AM'])(
      'rejects impossible clock time %j',
      (text) => {
        expect(parseRateLimitReset(text, NOW)).toBeNull();
      },
    );
  });

  describe('Retry-After', () => {
    it.each([
      ['Retry-After: 120', 120_000],
      ['retry-after 60', 60_000],
      ['retry after 30 seconds', 30_000],
      ['retry after 2 minutes', 120_000],
      ['{"retry_after":"7"}', 7_000],
      ['Retry-After: 0', 0],
      ['Retry-After: 3600.', 3_600_000],
    ])('%s -> now + %i ms', (text, deltaMs) => {
      expect(parseRateLimitReset(text, NOW)?.getTime()).toBe(NOW.getTime() + deltaMs);
    });
  });

  describe('relative "try again in"', () => {
    it.each([
      ['try again in 5 min', 300_000],
      ['try again in 5 mins', 300_000],
      ['try again in 90 seconds', 90_000],
      ['try again in 45 secs', 45_000],
      ['try again in 45 sec', 45_000],
      ['try again in 10s', 10_000],
      ['try again in 2m', 120_000],
      ['try again in 1h', 3_600_000],
      ['Try again in 1.5 hours.', 5_400_000],
      ['try again in 2 hours', 7_200_000],
      ['try again in 1 minute', 60_000],
      ['please retry in 20s', 20_000],
    ])('%s -> now + %i ms', (text, deltaMs) => {
      expect(parseRateLimitReset(text, NOW)?.getTime()).toBe(NOW.getTime() + deltaMs);
    });

    it('ignores a number without a unit', () => {
      expect(parseRateLimitReset('try again in 5', NOW)).toBeNull();
    });
  });

  describe('reset_time epoch', () => {
    it.each([
      'reset_time=1752624000',
      '{"reset_time":1752624000}',
      '"{\\"reset_time\\":1752624000}"',
      'reset_time: 1752624000000',
    ])('%s -> 1752624000 s', (text) => {
      expect(parseRateLimitReset(text, NOW)?.getTime()).toBe(1_752_624_000_000);
    });

    it('treats 13-digit values as milliseconds and shorter ones as seconds', () => {
      expect(parseRateLimitReset('reset_time: 1000000000000', NOW)?.getTime()).toBe(1e12);
      expect(parseRateLimitReset('reset_time: 999999999999', NOW)?.getTime()).toBe(
        999_999_999_999_000,
      );
    });
  });

  describe('no usable reset', () => {
    it.each([
      'connection timed out after 30s',
      '429 Too Many Requests',
      'Quota exceeded for today',
      'reset_time: 99999999999999999999999',
      'Retry-After: 99999999999999999999999',
      'try again in 9'.padEnd(400, '9') + ' hours',
      '',
    ])('%j -> null', (text) => {
      expect(parseRateLimitReset(text, NOW)).toBeNull();
    });
  });

  describe('properties', () => {
    const anyNow = fc.date({
      min: new Date('2000-01-01T00:00:00Z'),
      max: new Date('2100-01-01T00:00:00Z'),
      noInvalidDate: true,
    });

    it('"Retry-After: N" is exactly now + N seconds for any N in 0..10^7', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 10_000_000 }), anyNow, (n, now) => {
          const resetAt = parseRateLimitReset(`Retry-After: ${n}`, now);
          expect(resetAt?.getTime()).toBe(now.getTime() + n * 1_000);
        }),
      );
    });

    it('"try again in N minutes" is exactly now + N minutes for any N in 0..10^7', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 10_000_000 }), anyNow, (n, now) => {
          const resetAt = parseRateLimitReset(`Please try again in ${n} minutes`, now);
          expect(resetAt?.getTime()).toBe(now.getTime() + n * 60_000);
        }),
      );
    });

    it('"resets at H:MM" always lands within the next 24 hours, strictly after now', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 23 }),
          fc.integer({ min: 0, max: 59 }),
          anyNow,
          (hour, minute, now) => {
            const text = `resets at ${hour}:${String(minute).padStart(2, '0')}`;
            const resetAt = parseRateLimitReset(text, now);
            expect(resetAt).not.toBeNull();
            const deltaMs = (resetAt?.getTime() ?? 0) - now.getTime();
            expect(deltaMs).toBeGreaterThan(0);
            expect(deltaMs).toBeLessThanOrEqual(24 * 3_600_000);
            expect(resetAt?.getUTCHours()).toBe(hour);
            expect(resetAt?.getUTCMinutes()).toBe(minute);
          },
        ),
      );
    });

    it('a 429 embedded in a longer number is never a rate limit', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 9 }),
          fc.integer({ min: 0, max: 9 }),
          (before, after) => {
            expect(isRateLimitError(`order ${before}429 failed`)).toBe(false);
            expect(isRateLimitError(`order 429${after} failed`)).toBe(false);
          },
        ),
      );
    });
  });
});
