/**
 * Each limit form the agent programs print (API.md, "Rate limits, as these programs print them"),
 * read from the recorded wording: its reset, the zone it is read in, and the times that are no
 * reset time (a daylight-saving gap, an impossible clock) which fall back to backoff.
 */
import { describe, expect, it } from 'vitest';
import { LIMIT_FORMS, isRateLimitError, readRateLimitReset } from '../../src/domain/rateLimit.js';
import { planRetry } from '../../src/domain/backoff.js';

const reading = (text: string, now: string, hostZone = 'UTC') => readRateLimitReset(text, new Date(now), hostZone);
const resetOf = (text: string, now: string, hostZone = 'UTC') => {
  const read = reading(text, now, hostZone);
  return read && 'at' in read ? read.at.toISOString() : read;
};

describe('limit forms', () => {
  it('every form names its source and reads its own sample as a rate limit with a reset', () => {
    for (const form of LIMIT_FORMS) {
      expect(form.source.length, form.name).toBeGreaterThan(10);
      expect(isRateLimitError(form.sample), form.name).toBe(true);
      const read = reading(form.sample, '2026-12-01T12:00:00Z', 'Europe/Berlin');
      expect(read?.form, form.name).toBe(form.name);
      expect(read && 'at' in read, form.name).toBe(true);
    }
  });
});

describe('clock_with_zone: a clock time with an IANA zone in parentheses, read in that zone at its next occurrence', () => {
  it("\"You've hit your limit · resets 5pm (Europe/Warsaw)\" at 12:00 UTC is 16:00 UTC the same day (CET is UTC+1)", () => {
    expect(resetOf("You've hit your limit · resets 5pm (Europe/Warsaw)", '2026-12-01T12:00:00Z')).toBe('2026-12-01T16:00:00.000Z');
  });

  it("\"You've hit your limit · resets 5pm (Europe/Warsaw)\" after 5pm Warsaw is the next day's 5pm", () => {
    expect(resetOf("You've hit your limit · resets 5pm (Europe/Warsaw)", '2026-12-01T16:30:00Z')).toBe('2026-12-02T16:00:00.000Z');
  });

  it("the session form \"You've hit your session limit · resets 3:10pm (America/New_York)\" is read in New York (EST, UTC-5)", () => {
    expect(resetOf("You've hit your session limit · resets 3:10pm (America/New_York)", '2026-12-01T12:00:00Z')).toBe('2026-12-01T20:10:00.000Z');
  });

  it("the 5-hour form \"You've hit your 5-hour limit · resets 1:23am (Europe/Warsaw)\", as Claude Code 2.1.332 prints it", () => {
    // 21:23 UTC on Dec 1 is 22:23 in Warsaw: the next 1:23am there is Dec 2, 00:23 UTC.
    expect(resetOf("You've hit your 5-hour limit · resets 1:23am (Europe/Warsaw)", '2026-12-01T21:23:08Z')).toBe('2026-12-02T00:23:00.000Z');
  });

  it("the weekly form with a date \"You've hit your limit · resets Dec 5, 4:23pm (America/New_York)\" is that date, this year", () => {
    expect(resetOf("You've hit your limit · resets Dec 5, 4:23pm (America/New_York)", '2026-12-01T21:23:27Z')).toBe('2026-12-05T21:23:00.000Z');
  });

  it('a dated reset already past this year is next year\'s', () => {
    expect(resetOf("You've hit your weekly limit · resets Jan 3, 9am (Europe/Warsaw)", '2026-12-30T10:00:00Z')).toBe('2027-01-03T08:00:00.000Z');
  });

  it('a summer time is read with the zone\'s summer offset (CEST is UTC+2)', () => {
    expect(resetOf("You've hit your limit · resets 5pm (Europe/Warsaw)", '2026-07-01T08:00:00Z')).toBe('2026-07-01T15:00:00.000Z');
  });

  it('a time inside a daylight-saving gap is no reset time: 2:30am does not exist in New York on 2026-03-08', () => {
    expect(reading("You've hit your limit · resets 2:30am (America/New_York)", '2026-03-08T05:00:00Z')).toEqual({
      form: 'clock_with_zone', unusable: expect.stringContaining('daylight-saving gap'),
    });
  });

  it('an impossible clock time ("13pm") is no reset time', () => {
    expect(reading("You've hit your limit · resets 13pm (Europe/Warsaw)", '2026-12-01T12:00:00Z')).toEqual({
      form: 'clock_with_zone', unusable: expect.stringContaining('not a time of day'),
    });
  });

  it('an unknown zone is no reset time', () => {
    expect(reading("You've hit your limit · resets 5pm (Mars/Olympus_Mons)", '2026-12-01T12:00:00Z')).toEqual({
      form: 'clock_with_zone', unusable: "unknown time zone 'Mars/Olympus_Mons'",
    });
  });
});

describe('date_clock_host_zone for Claude Code\'s weekly form without a zone', () => {
  it('"You\'ve hit your weekly limit · resets Sep 15 at 7pm" is 7pm on Sep 15 in the host zone', () => {
    expect(resetOf("You've hit your weekly limit · resets Sep 15 at 7pm", '2026-09-12T10:00:00Z', 'Europe/Warsaw')).toBe('2026-09-15T17:00:00.000Z');
  });

  it('the dated form with "at" and a zone, "resets Apr 23 at 4pm (America/Recife)", is read in that zone', () => {
    expect(resetOf("You've hit your weekly limit · resets Apr 23 at 4pm (America/Recife)", '2026-04-20T10:00:00Z', 'Europe/Warsaw')).toBe('2026-04-23T19:00:00.000Z');
  });
});

describe('regain_access_date: an API spend limit with its date', () => {
  it('"You will regain access on 2026-04-01 at 00:00 UTC." resets at that instant', () => {
    expect(resetOf('API Error: 400 You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC.', '2026-03-20T10:00:00Z'))
      .toBe('2026-04-01T00:00:00.000Z');
  });
});

describe('a bare number after "resets" is no clock', () => {
  it('"rate limit resets 3 times a day; retry after 20 seconds" reads the Retry-After, not a clock', () => {
    expect(reading('rate limit resets 3 times a day; try again in 20 seconds', '2026-12-01T12:00:00Z')).toMatchObject({ form: 'duration' });
  });
});

describe('usage_limit_epoch and resets_at_epoch: epoch seconds', () => {
  it('"Claude AI usage limit reached|1750708800" resets at that epoch second', () => {
    expect(resetOf('Claude AI usage limit reached|1750708800', '2025-06-23T12:00:00Z')).toBe('2025-06-23T20:00:00.000Z');
  });

  it('a rate_limit_event printed as text resets at its resetsAt', () => {
    expect(resetOf('{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1796170988}}', '2026-12-01T21:23:08Z'))
      .toBe(new Date(1_796_170_988_000).toISOString());
  });
});

describe('duration: "try again in", "retry in", "reset after", in one or more parts', () => {
  it.each([
    ["You've hit your usage limit. Upgrade to Pro or try again in 3 days 6 hours 57 minutes.", (3 * 86_400 + 6 * 3_600 + 57 * 60) * 1000],
    ['Your quota will reset after 1h49m8s.', (3_600 + 49 * 60 + 8) * 1000],
    ['Please retry in 12.5s.', 12_500],
    ['Rate limit reached for gpt-5.5 on tokens per min (TPM): Please try again in 12.5s.', 12_500],
    ['try again in 2 hours and 5 minutes', (2 * 3_600 + 5 * 60) * 1000],
  ])('%j is now + %i ms', (text, delta) => {
    const now = '2026-12-01T12:00:00Z';
    expect(resetOf(text, now)).toBe(new Date(Date.parse(now) + delta).toISOString());
  });
});

describe('clock_host_zone and date_clock_host_zone: a time with no zone is the host\'s local time', () => {
  it('"try again at 3:35 AM" on a Los Angeles host is 3:35 Pacific (UTC-8), the next one', () => {
    expect(resetOf("You’ve hit your usage limit. Visit https://chatgpt.com/settings/usage to purchase more credits or try again at 3:35 AM.",
      '2026-12-01T12:00:00Z', 'America/Los_Angeles')).toBe('2026-12-02T11:35:00.000Z');
  });

  it('"try again at 4:56 PM" on a UTC host is 16:56 UTC today', () => {
    expect(resetOf('You’ve hit your usage limit. … or try again at 4:56 PM.', '2026-12-01T12:00:00Z')).toBe('2026-12-01T16:56:00.000Z');
  });

  it('"try again at Dec 5th, 2026 4:26 PM" (Codex, another day) is that date in the host zone', () => {
    expect(resetOf('You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at Dec 5th, 2026 4:26 PM.',
      '2026-12-01T12:00:00Z', 'Europe/Warsaw')).toBe('2026-12-05T15:26:00.000Z');
  });

  it('"try again at Aug 8th, 2026 12:30 PM" is noon thirty on that day', () => {
    expect(resetOf('try again at Aug 8th, 2026 12:30 PM', '2026-08-01T00:00:00Z', 'UTC')).toBe('2026-08-08T12:30:00.000Z');
  });

  it('a host-zone time inside a daylight-saving gap falls back to backoff, and the plan says why', () => {
    const plan = planRetry({
      errorText: "You’ve hit your usage limit. Try again at 2:30 AM.", now: new Date('2026-03-08T09:00:00Z'), retryCount: 0,
      steps: [120_000], jitter: 0, bufferSec: 30, random: () => 0.5, hostZone: 'America/New_York',
    });
    expect(plan).toMatchObject({ kind: 'retry', source: 'backoff', rateLimited: true, unusableReset: expect.stringContaining('daylight-saving gap') });
  });
});

describe('planRetry with a structured signal', () => {
  it('a rate_limit_event resetsAt wins over the text and schedules reset + buffer', () => {
    const plan = planRetry({
      errorText: 'API Error', now: new Date('2026-12-01T12:00:00Z'), retryCount: 2, steps: [120_000], jitter: 0, bufferSec: 30, random: () => 0.5,
      signal: { rateLimited: true, resetAt: Date.parse('2026-12-01T17:00:00Z') },
    });
    expect(plan).toMatchObject({ kind: 'retry', source: 'rate_limit_parsed', retryCount: 3, resetForm: 'structured_event' });
    expect(plan.kind === 'retry' && plan.retryAt.toISOString()).toBe('2026-12-01T17:00:30.000Z');
  });

  it('the rate limit still escalates after MaxRetryCount retries', () => {
    const plan = planRetry({
      errorText: '', now: new Date(), retryCount: 4, steps: [1], jitter: 0, bufferSec: 30, random: () => 0.5, signal: { rateLimited: true, resetAt: Date.now() + 60_000 },
    });
    expect(plan).toEqual({ kind: 'escalate', retryCount: 4, rateLimited: true });
  });
});

describe('detection of the programs\' limit words', () => {
  it.each([
    "You've hit your limit · resets 5pm (Europe/Warsaw)",
    'You’ve hit your usage limit. Upgrade to Plus to continue using Codex',
    'Claude AI usage limit reached|1750708800',
    'TerminalQuotaError: You have exhausted your daily quota on this model.',
    'Your quota will reset after 1h49m8s.',
    '{"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}',
    '{"type":"error","error":{"type":"usage_limit_reached"}}',
  ])('%j is a rate limit', (text) => expect(isRateLimitError(text)).toBe(true));

  it.each(['Reached max turns (10)', 'the session limit of the test runner is 5', 'quota of three reviewers reached'])('%j is not', (text) => {
    expect(isRateLimitError(text)).toBe(false);
  });
});
