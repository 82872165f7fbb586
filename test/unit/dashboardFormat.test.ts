import { describe, expect, it } from 'vitest';
import { humanDuration, relativeTime, WAKEUP_BADGE_LABELS, wakeupBadges } from '../../dashboard/src/format.js';

describe('wakeupBadges', () => {
  it.each([
    ['assignee_changed', 'Cancelled - assignee changed'],
    ['task_terminal', 'Cancelled - task completed'],
    ['retry_task_cancelled', 'Cancelled - task cancelled'],
    ['retry_stale_assignee', 'Cancelled - retry stale'],
  ])('labels a wakeup cancelled for %s as the spec words it', (reason, label) => {
    expect(wakeupBadges({ status: 'cancelled', cancel_reason: reason })).toEqual([{ label, tone: 'muted' }]);
  });

  it('adds "Recovered" to a wakeup the recovery sweep dispatched', () => {
    expect(wakeupBadges({ status: 'finished', cancel_reason: null, recovered: true }).map((b) => b.label)).toEqual(['Finished', 'Recovered']);
  });

  it('says when a wakeup finished with no run', () => {
    expect(wakeupBadges({ status: 'finished', cancel_reason: null, skip_reason: 'agent_paused' })[0]!.label).toBe('Finished - no run');
  });

  it('offers every label in the filter', () => {
    for (const label of ['Cancelled - assignee changed', 'Cancelled - task completed', 'Cancelled - task cancelled', 'Cancelled - retry stale', 'Recovered']) {
      expect(WAKEUP_BADGE_LABELS).toContain(label);
    }
  });
});

describe('times', () => {
  it('formats durations and relative times', () => {
    expect(humanDuration(850)).toBe('850ms');
    expect(humanDuration(245_000)).toBe('4m 05s');
    expect(humanDuration(3 * 3600_000 + 600_000)).toBe('3h 10m');
    const now = Date.parse('2026-05-01T09:00:00Z');
    expect(relativeTime('2026-05-01T09:00:08Z', now)).toBe('in 8s');
    expect(relativeTime('2026-05-01T08:57:00Z', now)).toBe('3m 00s ago');
    expect(relativeTime(null, now)).toBe('-');
  });
});
