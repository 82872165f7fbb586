import { describe, expect, it } from 'vitest';
import {
  agentActivity, cooldownLeft, formatInZone, humanDuration, ID_IN_TEXT, inboxKindBadge, relativeTime, replicaLost, shortId, usdTick, WAKEUP_BADGE_LABELS, wakeupBadges,
} from '../../dashboard/src/format.js';
import { fireOutcome, lastFiredOf, nextFire, routineZone, triggerZone } from '../../dashboard/src/routineTimes.js';

describe('wakeupBadges', () => {
  it.each([
    ['assignee_changed', 'Cancelled - assignee changed'],
    ['task_terminal', 'Cancelled - task completed'],
    ['retry_task_cancelled', 'Cancelled - task cancelled'],
    ['retry_stale_assignee', 'Cancelled - retry stale'],
    ['run_cancelled', 'Cancelled - run stopped by a person'],
    ['owner_revoked', "Cancelled - owner's token revoked"],
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

describe('times in a named zone', () => {
  it('reads a time as the zone\'s clock does, and names the zone', () => {
    expect(formatInZone('2026-12-02T08:00:00Z', 'Europe/Paris')).toBe('2026-12-02 09:00 Europe/Paris');
    expect(formatInZone('2026-07-02T08:00:00Z', 'Europe/Paris')).toBe('2026-07-02 10:00 Europe/Paris');
    expect(formatInZone('2026-12-02T08:00:30Z', 'America/New_York')).toBe('2026-12-02 03:00:30 America/New_York');
    expect(formatInZone('2026-12-02T00:30:00Z', 'UTC')).toBe('2026-12-02 00:30 UTC');
    expect(formatInZone(null, 'UTC')).toBe('-');
    expect(formatInZone('2026-12-02T08:00:00Z', 'Not/AZone')).toBe('2026-12-02 08:00 UTC');
  });

  it('puts a routine\'s times in its schedule\'s zone, else its workspace\'s', () => {
    const schedule = { id: 'trg_1', kind: 'schedule' as const, timezone: 'Asia/Tokyo', enabled: true, next_run_at: '2026-12-02T00:00:00Z', last_fired_at: null };
    const later = { ...schedule, id: 'trg_2', timezone: 'Europe/Paris', next_run_at: '2026-12-03T00:00:00Z' };
    const manual = { ...schedule, id: 'trg_3', kind: 'manual' as const, timezone: null, next_run_at: null };
    expect(triggerZone(manual, 'Europe/Warsaw')).toBe('Europe/Warsaw');
    expect(triggerZone(schedule, 'Europe/Warsaw')).toBe('Asia/Tokyo');
    expect(routineZone({ triggers: [manual] as never }, 'Europe/Warsaw')).toBe('Europe/Warsaw');
    expect(routineZone({ triggers: [manual, later] as never }, 'Europe/Warsaw')).toBe('Europe/Paris');
    expect(nextFire([later, schedule, manual] as never, 'UTC')).toEqual({ at: '2026-12-02T00:00:00Z', zone: 'Asia/Tokyo' });
    expect(nextFire([{ ...schedule, enabled: false }] as never, 'UTC')).toBeNull();
  });

  it('counts a Run now as its manual trigger\'s last fire, and never another trigger\'s', () => {
    const runs = [{ trigger_id: 'trg_m', started_at: '2026-12-02T10:00:00Z' }, { trigger_id: null, started_at: '2026-12-02T11:00:00Z' }] as never;
    expect(lastFiredOf({ id: 'trg_m', last_fired_at: null }, runs)).toBe('2026-12-02T10:00:00Z');
    expect(lastFiredOf({ id: 'trg_s', last_fired_at: null }, runs)).toBeNull();
    expect(lastFiredOf({ id: 'trg_s', last_fired_at: '2026-12-01T09:00:00Z' }, runs)).toBe('2026-12-01T09:00:00Z');
  });

  it('says what a fire did in words', () => {
    expect(fireOutcome({ status: 'task_created', skip_reason: null, error: null })).toBe('created a task');
    expect(fireOutcome({ status: 'skipped', skip_reason: 'active_run', error: null })).toBe('skipped: its last fire is still active');
    expect(fireOutcome({ status: 'skipped', skip_reason: 'something_new', error: null })).toBe('skipped: something new');
    expect(fireOutcome({ status: 'failed', skip_reason: null, error: 'missing required variable \'topic\'' })).toBe("could not fire: missing required variable 'topic'");
  });
});

describe('ids, agents, replicas and costs', () => {
  it('shortens an id to its kind and last digits, and finds ids in a sentence', () => {
    const id = 'run_01a2342d03b176cba9a3f4e50d60feac';
    expect(shortId(id)).toBe('run_…60feac');
    expect(shortId('replica-1')).toBe('replica-1');
    expect(shortId('own_01a2342d03b176cba9a3f4e50d60feac_host_4242')).toBe('own_…60feac_host_4242');
    expect(`finished: run ${id} completed`.match(ID_IN_TEXT)).toEqual([id]);
  });

  it('shows an agent that holds wakeups as waiting, not idle, and a cooldown only while it lasts', () => {
    const now = Date.parse('2026-05-01T09:00:00Z');
    const actor = { queued: 0, running: 0, cooldown_until: null, next_available_at: null };
    expect(agentActivity({ status: 'idle' }, actor, now)).toEqual({ label: 'idle', tone: 'good' });
    expect(agentActivity({ status: 'idle' }, { ...actor, queued: 1 }, now).label).toBe('1 queued, starting');
    expect(agentActivity({ status: 'idle' }, { ...actor, queued: 1, cooldown_until: '2026-05-01T09:00:08Z' }, now).label).toBe('1 queued, cooling down');
    expect(agentActivity({ status: 'working' }, { ...actor, running: 1, queued: 2 }, now).label).toBe('working, 2 queued');
    expect(agentActivity({ status: 'paused' }, { ...actor, queued: 1 }, now).label).toBe('paused');
    expect(cooldownLeft('2026-05-01T09:00:08Z', now)).toBe('ends in 8s');
    expect(cooldownLeft('2026-05-01T08:59:38Z', now)).toBeNull();
  });

  it('marks a replica lost once two of its heartbeats are missed, and never the SQLite process', () => {
    const beat = Date.parse('2026-05-01T09:00:00Z');
    const replica = { heartbeat_at: new Date(beat).toISOString(), expires_at: new Date(beat + 15_000).toISOString() };
    expect(replicaLost(replica, beat + 9_000)).toBe(false);
    expect(replicaLost(replica, beat + 10_500)).toBe(true);
    expect(replicaLost({ ...replica, expires_at: null }, beat + 3_600_000)).toBe(false);
  });

  it('labels the cost axis with the digits that matter', () => {
    expect([0, 0.0075, 0.25, 2.5, 12.4].map(usdTick)).toEqual(['$0', '$0.0075', '$0.25', '$2.5', '$12']);
  });
});

describe('inbox kinds', () => {
  it('names each kind the server raises, and reads an unknown one as words', () => {
    expect(inboxKindBadge('agent.paused')).toEqual({ label: 'agent paused', tone: 'warn' });
    expect(inboxKindBadge('agent.setup_error')).toEqual({ label: 'setup error', tone: 'bad' });
    expect(inboxKindBadge('approval')).toEqual({ label: 'approval', tone: 'info' });
    expect(inboxKindBadge('webhook.rejected_often')).toEqual({ label: 'webhook rejected often', tone: 'bad' });
  });
});
