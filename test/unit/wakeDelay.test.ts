import { describe, expect, it } from 'vitest';
import { MAX_WAKE_DELAY_SEC, wakeNotBefore } from '../../src/domain/wakeDelay.js';

const NOW = Date.parse('2026-05-01T12:00:00Z');

describe('wakeNotBefore', () => {
  it('is at once with no delay, after delay_sec, or at the time given', () => {
    expect(wakeNotBefore({}, NOW)).toEqual({ notBefore: undefined });
    expect(wakeNotBefore({ delay_sec: 90 }, NOW)).toEqual({ notBefore: NOW + 90_000 });
    expect(wakeNotBefore({ at: '2026-05-01T14:00:00+02:00' }, NOW)).toEqual({ notBefore: NOW });
    expect(wakeNotBefore({ at: '2026-05-02T12:00:00Z' }, NOW)).toEqual({ notBefore: NOW + 86_400_000 });
  });

  it('reads a time in the past as now', () => {
    expect(wakeNotBefore({ at: '2026-04-30T12:00:00Z' }, NOW)).toEqual({ notBefore: NOW });
  });

  it('refuses both at once, a time that is no time, and a time past the 30-day bound', () => {
    expect(wakeNotBefore({ delay_sec: 1, at: '2026-05-02T12:00:00Z' }, NOW)).toMatchObject({ invalid: { field: 'at' } });
    expect(wakeNotBefore({ at: 'tomorrow' }, NOW)).toMatchObject({ invalid: { field: 'at' } });
    expect(wakeNotBefore({ at: new Date(NOW + MAX_WAKE_DELAY_SEC * 1000 + 1000).toISOString() }, NOW)).toMatchObject({ invalid: { field: 'at' } });
    expect(wakeNotBefore({ at: new Date(NOW + MAX_WAKE_DELAY_SEC * 1000).toISOString() }, NOW)).toEqual({ notBefore: NOW + MAX_WAKE_DELAY_SEC * 1000 });
  });
});
