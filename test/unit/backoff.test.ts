import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_RETRY_COUNT,
  backoffDelayMs,
  parseDurationList,
  planRetry,
  type PlanRetryInput,
} from '../../src/domain/backoff.js';

const NOW = new Date('2026-01-15T03:45:00Z');
const STEPS = parseDurationList('2m,10m,30m,2h');
const MIDPOINT_RANDOM = (): number => 0.5; // 2*0.5-1 = 0 -> no jitter offset

function plan(overrides: Partial<PlanRetryInput>): ReturnType<typeof planRetry> {
  return planRetry({
    errorText: '',
    now: NOW,
    retryCount: 0,
    steps: STEPS,
    jitter: 0.2,
    bufferSec: 30,
    random: MIDPOINT_RANDOM,
    ...overrides,
  });
}

describe('parseDurationList', () => {
  it('parses the default backoff list into milliseconds', () => {
    expect(parseDurationList('2m,10m,30m,2h')).toEqual([120_000, 600_000, 1_800_000, 7_200_000]);
  });

  it('supports ms, s, m, h, d, bare seconds, decimals and whitespace', () => {
    expect(parseDurationList('250ms, 5s ,1.5m,1h,1d,45')).toEqual([
      250, 5_000, 90_000, 3_600_000, 86_400_000, 45_000,
    ]);
  });

  it.each([
    ['2m,x', 'x'],
    ['2m,,10m', ''],
    ['', ''],
    ['5M', '5M'],
    ['-5s', '-5s'],
    ['10 minutes', '10 minutes'],
  ])('rejects %j naming the bad item %j', (spec, badItem) => {
    expect(() => parseDurationList(spec)).toThrow(
      `Invalid duration '${badItem}' in '${spec}': expected a number followed by ms, s, m, h or d`,
    );
  });

  it('rejects values too large to represent', () => {
    expect(() => parseDurationList('99999999999999999999d')).toThrow(
      "Invalid duration '99999999999999999999d' in '99999999999999999999d'",
    );
  });
});

describe('MAX_RETRY_COUNT', () => {
  it('allows one retry per default backoff step', () => {
    expect(MAX_RETRY_COUNT).toBe(4);
    expect(MAX_RETRY_COUNT).toBe(STEPS.length);
  });
});

describe('backoffDelayMs', () => {
  it('uses the step for the retry index and repeats the last step past the end', () => {
    expect([0, 1, 2, 3, 4, 10].map((i) => backoffDelayMs(i, STEPS, 0.2, MIDPOINT_RANDOM))).toEqual(
      [120_000, 600_000, 1_800_000, 7_200_000, 7_200_000, 7_200_000],
    );
  });

  it('spreads by exactly ±jitter at the extremes of random', () => {
    expect(backoffDelayMs(0, STEPS, 0.2, () => 0)).toBe(96_000);
    expect(backoffDelayMs(0, STEPS, 0.2, () => 0.75)).toBe(132_000);
    expect(backoffDelayMs(0, [1_000], 0.1, () => 0.999999999)).toBe(1_100);
  });

  it('rounds to whole milliseconds', () => {
    expect(backoffDelayMs(0, [1_000], 0.1, () => 0.33333)).toBe(967);
  });

  it('never goes negative with full jitter', () => {
    expect(backoffDelayMs(0, [1_000], 1, () => 0)).toBe(0);
  });

  it.each([
    [() => backoffDelayMs(-1, STEPS, 0.2, Math.random), 'Invalid retry index -1'],
    [() => backoffDelayMs(1.5, STEPS, 0.2, Math.random), 'Invalid retry index 1.5'],
    [() => backoffDelayMs(0, [], 0.2, Math.random), 'Invalid backoff steps []'],
    [() => backoffDelayMs(0, [1_000, -5], 0.2, Math.random), 'Invalid backoff step -5'],
    [() => backoffDelayMs(0, STEPS, 1.5, Math.random), 'Invalid jitter 1.5'],
    [() => backoffDelayMs(0, STEPS, Number.NaN, Math.random), 'Invalid jitter NaN'],
  ])('rejects bad input (%#) naming the value', (call, message) => {
    expect(call).toThrow(message);
  });
});

describe('planRetry', () => {
  it('rate limit with parsed reset time: resets at 4:00 AM schedules 04:00:30', () => {
    const result = plan({ errorText: 'rate limit resets at 4:00 AM' });
    expect(result).toEqual({
      kind: 'retry',
      retryAt: new Date('2026-01-15T04:00:30Z'),
      retryCount: 1,
      source: 'rate_limit_parsed',
      parsedResetAt: new Date('2026-01-15T04:00:00Z'),
      resetForm: 'clock_host_zone',
      unusableReset: null,
      rateLimited: true,
    });
  });

  it('rate limit with parsed reset time: "rate_limit_error: resets at 4:00 AM UTC" at 03:45 UTC schedules 04:00:30 UTC', () => {
    const result = plan({ errorText: 'rate_limit_error: resets at 4:00 AM UTC' });
    expect(result.kind === 'retry' && result.retryAt.toISOString()).toBe('2026-01-15T04:00:30.000Z');
  });

  it('rate limit with parsed reset time: resets at 3:00 AM (past today) schedules tomorrow 03:00:30', () => {
    const result = plan({ errorText: 'rate limit hit, resets at 3:00 AM' });
    expect(result.kind === 'retry' && result.retryAt.toISOString()).toBe('2026-01-16T03:00:30.000Z');
  });

  it.each([
    ['429 Too Many Requests. Retry-After: 3600', 3_630_000],
    ['rate limited. Please try again in 5 minutes', 330_000],
  ])('rate limit with relative reset: %j schedules now + %i ms', (errorText, deltaMs) => {
    const result = plan({ errorText, retryCount: 2 });
    expect(result).toMatchObject({
      kind: 'retry',
      retryCount: 3,
      source: 'rate_limit_parsed',
      rateLimited: true,
    });
    expect(result.kind === 'retry' && result.retryAt.getTime()).toBe(NOW.getTime() + deltaMs);
  });

  it('rate limit with a reset time already in the past falls back to backoff', () => {
    const result = plan({ errorText: 'rate_limit_error reset_time: 1752624000', retryCount: 1 });
    expect(result).toEqual({
      kind: 'retry',
      retryAt: new Date(NOW.getTime() + 600_000),
      retryCount: 2,
      source: 'backoff',
      parsedResetAt: null,
      resetForm: null,
      unusableReset: expect.stringContaining('has passed'),
      rateLimited: true,
    });
  });

  it('rate limit without a reset time uses backoff', () => {
    const result = plan({ errorText: '429 Too Many Requests' });
    expect(result).toEqual({
      kind: 'retry',
      retryAt: new Date(NOW.getTime() + 120_000),
      retryCount: 1,
      source: 'backoff',
      parsedResetAt: null,
      resetForm: null,
      unusableReset: null,
      rateLimited: true,
    });
  });

  it('a reset phrase in a non-rate-limit error is ignored', () => {
    const result = plan({ errorText: 'lease resets at 4:00 AM; connection timed out' });
    expect(result).toMatchObject({ kind: 'retry', source: 'backoff', rateLimited: false });
  });

  it('generic timeout uses backoff, then escalates after MaxRetryCount', () => {
    const errorText = 'connection timed out after 30s';
    const delays: number[] = [];
    for (let retryCount = 0; retryCount < MAX_RETRY_COUNT; retryCount++) {
      const result = plan({ errorText, retryCount });
      if (result.kind !== 'retry') throw new Error(`expected retry at count ${retryCount}`);
      expect(result).toMatchObject({
        retryCount: retryCount + 1,
        source: 'backoff',
        parsedResetAt: null,
        rateLimited: false,
      });
      delays.push(result.retryAt.getTime() - NOW.getTime());
    }
    expect(delays).toEqual([120_000, 600_000, 1_800_000, 7_200_000]);
    expect(plan({ errorText, retryCount: MAX_RETRY_COUNT })).toEqual({
      kind: 'escalate',
      retryCount: 4,
      rateLimited: false,
    });
  });

  it('rate limit never suppresses escalation once retries are spent', () => {
    expect(plan({ errorText: 'rate limit resets at 4:00 AM', retryCount: 4 })).toEqual({
      kind: 'escalate',
      retryCount: 4,
      rateLimited: true,
    });
  });

  it('honours a custom maxRetries', () => {
    expect(plan({ retryCount: 1, maxRetries: 1 }).kind).toBe('escalate');
    expect(plan({ retryCount: 0, maxRetries: 1 }).kind).toBe('retry');
  });

  it('applies jitter from the injected random source', () => {
    const result = plan({ errorText: 'boom', retryCount: 0, random: () => 0 });
    expect(result.kind === 'retry' && result.retryAt.getTime()).toBe(NOW.getTime() + 96_000);
  });
});

describe('properties', () => {
  const anyRandom = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
  const anyJitter = fc.double({ min: 0, max: 1, noNaN: true });
  const anyNow = fc.date({
    min: new Date('2000-01-01T00:00:00Z'),
    max: new Date('2100-01-01T00:00:00Z'),
    noInvalidDate: true,
  });
  const anySteps = fc.array(fc.integer({ min: 0, max: 1_000_000_000 }), {
    minLength: 1,
    maxLength: 6,
  });
  const anyErrorText = fc.oneof(
    fc.string(),
    fc.constantFrom(
      'connection timed out after 30s',
      '429 Too Many Requests',
      'rate limit resets at 4:00 AM',
      'rate_limit_error: resets at 11:59 PM UTC',
      'reset_time: 1752624000',
      'rate limited, reset_time=4102444800000',
    ),
    fc.nat({ max: 10_000_000 }).map((n) => `rate limit. Retry-After: ${n}`),
    fc.nat({ max: 100_000 }).map((n) => `rate limit: try again in ${n} minutes`),
  );

  it('backoff delay is always within [step*(1-j), step*(1+j)] for any random in [0,1)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000_000 }),
        anyJitter,
        anyRandom,
        (step, jitter, random) => {
          const delay = backoffDelayMs(0, [step], jitter, () => random);
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(step * (1 - jitter));
          expect(delay).toBeLessThanOrEqual(step * (1 + jitter));
        },
      ),
    );
  });

  it('planRetry never returns a retryAt before now', () => {
    fc.assert(
      fc.property(
        anyErrorText,
        anyNow,
        fc.integer({ min: 0, max: MAX_RETRY_COUNT - 1 }),
        anySteps,
        anyJitter,
        anyRandom,
        fc.integer({ min: 0, max: 3_600 }),
        (errorText, now, retryCount, steps, jitter, random, bufferSec) => {
          const result = planRetry({
            errorText,
            now,
            retryCount,
            steps,
            jitter,
            bufferSec,
            random: () => random,
          });
          expect(result.kind).toBe('retry');
          if (result.kind === 'retry') {
            expect(result.retryAt.getTime()).toBeGreaterThanOrEqual(now.getTime());
            expect(result.retryCount).toBe(retryCount + 1);
          }
        },
      ),
    );
  });

  it('any retryCount >= 4 escalates', () => {
    fc.assert(
      fc.property(
        anyErrorText,
        anyNow,
        fc.integer({ min: MAX_RETRY_COUNT, max: 1_000_000 }),
        (errorText, now, retryCount) => {
          const result = planRetry({
            errorText,
            now,
            retryCount,
            steps: STEPS,
            jitter: 0.2,
            bufferSec: 30,
            random: Math.random,
          });
          expect(result).toEqual({
            kind: 'escalate',
            retryCount,
            rateLimited: expect.any(Boolean),
          });
        },
      ),
    );
  });
});
