/**
 * Properties of planRetry not covered by backoff.test.ts: the backoff delay of retry n stays in
 * step n's jitter band, a parsed reset drives the schedule regardless of the backoff table, and a
 * reset that is past once the buffer is added falls back to backoff (never scheduling before now).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_RETRY_COUNT, planRetry } from '../../src/domain/backoff.js';

// Epoch milliseconds >= 1e12 are read as milliseconds by reset_time, so resets are exact to the ms.
const anyNowMs = fc.integer({ min: Date.parse('2002-01-01T00:00:00Z'), max: Date.parse('2100-01-01T00:00:00Z') });
const anyRetryCount = fc.integer({ min: 0, max: MAX_RETRY_COUNT - 1 });
const anySteps = fc.array(fc.integer({ min: 0, max: 1_000_000_000 }), { minLength: 1, maxLength: 8 });
const anyJitter = fc.double({ min: 0, max: 1, noNaN: true });
const anyRandom = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
const anyBufferSec = fc.integer({ min: 0, max: 3_600 });
const nonRateLimitError = fc.constantFrom(
  'connection timed out after 30s',
  'ECONNRESET: socket hang up',
  'agent exited with code 137',
  'lease resets at 4:00 AM; upstream unavailable',
  'retry in 5 minutes (scheduler hint) after a crash',
);

describe('planRetry properties', () => {
  it('a non-rate-limit failure at retryCount n is delayed by step n (or the last step) within ±jitter', () => {
    fc.assert(
      fc.property(nonRateLimitError, anyNowMs, anyRetryCount, anySteps, anyJitter, anyRandom, anyBufferSec,
        (errorText, nowMs, retryCount, steps, jitter, random, bufferSec) => {
          const plan = planRetry({ errorText, now: new Date(nowMs), retryCount, steps, jitter, bufferSec, random: () => random });
          expect(plan).toMatchObject({ kind: 'retry', source: 'backoff', parsedResetAt: null, rateLimited: false, retryCount: retryCount + 1 });
          if (plan.kind !== 'retry') return;
          const step = steps[Math.min(retryCount, steps.length - 1)]!;
          const delay = plan.retryAt.getTime() - nowMs;
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(Math.max(0, Math.ceil(step * (1 - jitter))));
          expect(delay).toBeLessThanOrEqual(Math.floor(step * (1 + jitter)));
        }),
    );
  });

  it('a parsed future reset schedules exactly reset + buffer whatever the retry count and backoff table', () => {
    fc.assert(
      fc.property(anyNowMs, fc.integer({ min: 1, max: 30 * 86_400_000 }), anyRetryCount, anySteps, anyJitter, anyRandom, anyBufferSec,
        (nowMs, aheadMs, retryCount, steps, jitter, random, bufferSec) => {
          const resetMs = nowMs + aheadMs;
          const plan = planRetry({
            errorText: `rate_limit_error reset_time: ${resetMs}`, now: new Date(nowMs), retryCount, steps, jitter, bufferSec, random: () => random,
          });
          expect(plan).toEqual({
            kind: 'retry',
            retryAt: new Date(resetMs + bufferSec * 1_000),
            retryCount: retryCount + 1,
            source: 'rate_limit_parsed',
            parsedResetAt: new Date(resetMs),
            resetForm: 'reset_time_epoch',
            unusableReset: null,
            rateLimited: true,
          });
        }),
    );
  });

  it('a parsed reset in the past is used only while reset + buffer is still ahead; otherwise backoff applies and retryAt >= now', () => {
    fc.assert(
      fc.property(anyNowMs, anyBufferSec, fc.integer({ min: 0, max: 10 * 86_400_000 }), anyRetryCount, anySteps, anyJitter, anyRandom,
        (nowMs, bufferSec, behindMs, retryCount, steps, jitter, random) => {
          const resetMs = nowMs - behindMs;
          const plan = planRetry({
            errorText: `429 Too Many Requests; reset_time=${resetMs}`, now: new Date(nowMs), retryCount, steps, jitter, bufferSec, random: () => random,
          });
          expect(plan.kind).toBe('retry');
          if (plan.kind !== 'retry') return;
          expect(plan.retryAt.getTime()).toBeGreaterThanOrEqual(nowMs);
          expect(plan.retryCount).toBe(retryCount + 1);
          if (resetMs + bufferSec * 1_000 > nowMs) {
            expect(plan).toMatchObject({ source: 'rate_limit_parsed', parsedResetAt: new Date(resetMs) });
            expect(plan.retryAt.getTime()).toBe(resetMs + bufferSec * 1_000);
          } else {
            expect(plan).toMatchObject({ source: 'backoff', parsedResetAt: null, rateLimited: true });
            const step = steps[Math.min(retryCount, steps.length - 1)]!;
            expect(plan.retryAt.getTime() - nowMs).toBeLessThanOrEqual(Math.floor(step * (1 + jitter)));
          }
        }),
    );
  });

  it('replaying failures from retryCount 0 yields exactly MAX_RETRY_COUNT retries, then escalation, whatever the error', () => {
    fc.assert(
      fc.property(fc.oneof(nonRateLimitError, fc.constantFrom('rate limit. Retry-After: 60', 'quota exceeded', 'rate_limit_error: resets at 4:00 AM UTC')),
        anyNowMs, (errorText, nowMs) => {
          let retryCount = 0;
          let retries = 0;
          for (;;) {
            const plan = planRetry({ errorText, now: new Date(nowMs), retryCount, steps: [1_000], jitter: 0.25, bufferSec: 30, random: Math.random });
            if (plan.kind === 'escalate') {
              expect(plan.retryCount).toBe(MAX_RETRY_COUNT);
              break;
            }
            expect(plan.retryCount).toBe(retryCount + 1);
            retryCount = plan.retryCount;
            retries++;
            expect(retries).toBeLessThanOrEqual(MAX_RETRY_COUNT);
          }
          expect(retries).toBe(MAX_RETRY_COUNT);
        }),
    );
  });
});
