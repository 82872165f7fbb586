/**
 * Pure formatting for the pages: times, durations and the wakeup status badges. No DOM here, so
 * the unit tests can import it.
 */
import type { ReasonCode } from '../../src/domain/activityCodes.js';
import { OWNER_REVOKED_REASON, RUN_CANCELLED_REASON } from '../../src/domain/runCancel.js';

export type Tone = 'neutral' | 'info' | 'good' | 'warn' | 'bad' | 'muted';

export interface Badge {
  label: string;
  tone: Tone;
}

/** The spec's wording for each cancel reason ("Cancelled - assignee changed", ...): a badge, not the reason's sentence. */
const CANCEL_LABELS: Record<string, string> = {
  assignee_changed: 'Cancelled - assignee changed',
  task_terminal: 'Cancelled - task completed',
  retry_task_cancelled: 'Cancelled - task cancelled',
  retry_stale_assignee: 'Cancelled - retry stale',
  task_not_found: 'Cancelled - task not found',
  review_participant_changed: 'Cancelled - reviewer changed',
  [RUN_CANCELLED_REASON]: 'Cancelled - run stopped by a person',
  [OWNER_REVOKED_REASON]: 'Cancelled - owner\'s token revoked',
} satisfies Partial<Record<ReasonCode, string>>;

const STATUS_LABELS: Record<string, Badge> = {
  queued: { label: 'Queued', tone: 'info' },
  claimed: { label: 'Running', tone: 'info' },
  scheduled_retry: { label: 'Retry scheduled', tone: 'warn' },
  coalesced: { label: 'Coalesced', tone: 'muted' },
  skipped: { label: 'Skipped', tone: 'muted' },
  finished: { label: 'Finished', tone: 'good' },
  failed: { label: 'Failed', tone: 'bad' },
  cancelled: { label: 'Cancelled', tone: 'muted' },
};

/** Each kind of inbox item the server raises (dispatch/, services/), as its badge reads. */
const INBOX_KIND_BADGES: Record<string, Badge> = {
  approval: { label: 'approval', tone: 'info' },
  'agent.error': { label: 'agent error', tone: 'bad' },
  'agent.setup_error': { label: 'setup error', tone: 'bad' },
  'agent.paused': { label: 'agent paused', tone: 'warn' },
  'routine.paused': { label: 'routine paused', tone: 'warn' },
  'quota.exhausted': { label: 'quota exhausted', tone: 'warn' },
};

/** An inbox item's badge; a kind this dashboard does not know yet reads as its own words. */
export function inboxKindBadge(kind: string): Badge {
  return INBOX_KIND_BADGES[kind] ?? { label: kind.replace(/[._]/g, ' '), tone: 'bad' };
}

/** The badges of a wakeup: its status (cancellations say why), plus "Recovered" when the sweep re-dispatched it. */
export function wakeupBadges(wakeup: { status: string; cancel_reason: string | null; skip_reason?: string | null; recovered?: boolean }): Badge[] {
  const badges: Badge[] = [];
  if (wakeup.status === 'cancelled') {
    badges.push({ label: CANCEL_LABELS[wakeup.cancel_reason ?? ''] ?? `Cancelled - ${(wakeup.cancel_reason ?? 'no reason').replaceAll('_', ' ')}`, tone: 'muted' });
  } else if (wakeup.status === 'finished' && wakeup.skip_reason) {
    badges.push({ label: 'Finished - no run', tone: 'muted' });
  } else {
    badges.push(STATUS_LABELS[wakeup.status] ?? { label: wakeup.status, tone: 'neutral' });
  }
  if (wakeup.recovered) badges.push({ label: 'Recovered', tone: 'warn' });
  return badges;
}

/** Every label the wakeup list can show, for its badge filter. */
export const WAKEUP_BADGE_LABELS: string[] = [
  ...Object.values(STATUS_LABELS).map((badge) => badge.label),
  'Finished - no run',
  ...Object.values(CANCEL_LABELS),
  'Recovered',
];

export function statusTone(status: string): Tone {
  switch (status) {
    case 'succeeded': case 'finished': case 'task_created': case 'dispatched': case 'active': case 'idle':
      return 'good';
    case 'running': case 'queued': case 'claimed': case 'received': case 'working':
      return 'info';
    case 'failed': case 'interrupted': case 'stopped':
      return 'bad';
    case 'paused': case 'scheduled_retry':
      return 'warn';
    default:
      return 'muted';
  }
}

/** The browser's own time zone, as an IANA name. */
export function browserZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

function zoneFormat(zone: string): Intl.DateTimeFormat {
  let format = zoneFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    zoneFormats.set(zone, format);
  }
  return format;
}

/**
 * `2026-12-02 09:00 Europe/Paris`: the time as a clock in `zone` reads it, with the zone named.
 * Seconds only when there are some (a cron with a seconds field). A zone the browser does not know
 * falls back to UTC, and says so.
 */
export function formatInZone(iso: string | null | undefined, zone: string): string {
  if (!iso) return '-';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  let format: Intl.DateTimeFormat;
  try {
    format = zoneFormat(zone);
  } catch {
    return formatInZone(iso, 'UTC');
  }
  const part = Object.fromEntries(format.formatToParts(date).map((p) => [p.type, p.value]));
  const seconds = part.second === '00' ? '' : `:${part.second}`;
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}${seconds} ${zone}`;
}

/** `2026-05-01 09:30:05` in the viewer's time zone. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '-';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** "in 8s", "3m ago", "2h ago", "in 4d". */
export function relativeTime(iso: string | null | undefined, now: number): string {
  if (!iso) return '-';
  const ms = new Date(iso).getTime() - now;
  if (Number.isNaN(ms)) return iso;
  const text = humanDuration(Math.abs(ms));
  if (Math.abs(ms) < 1000) return 'now';
  return ms > 0 ? `in ${text}` : `${text} ago`;
}

/** 850ms, 12s, 4m 05s, 3h 10m, 2d 4h. */
export function humanDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${String(minutes % 60).padStart(2, '0')}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

/** How long between two times; while `end` is missing, until now. */
export function elapsed(start: string | null | undefined, end: string | null | undefined, now: number): string {
  if (!start) return '-';
  const from = new Date(start).getTime();
  const to = end ? new Date(end).getTime() : now;
  return humanDuration(Math.max(0, to - from));
}

/** An id in a sentence: a kind, an underscore and 32 hex digits (src/services/ids.ts). */
export const ID_IN_TEXT = /\b[a-z]{2,4}_[0-9a-f]{32}\b/g;

/**
 * An id as the pages show it, short by design: its kind and its last 6 digits (`run_…60feac`). The
 * first digits are its creation time, alike for ids made together; the last are random. What
 * follows the digits stays whole: a SQLite process's owner id ends with its host and pid
 * (src/actors/ownership.ts). The whole id goes in a title and a copy button (ui.tsx ShortId).
 */
export function shortId(id: string | null | undefined): string {
  if (!id) return '-';
  const parts = /^([a-z]{2,4})_([0-9a-f]{32})(_.+)?$/.exec(id);
  if (parts) return `${parts[1]}_…${parts[2]!.slice(-6)}${parts[3] ?? ''}`;
  return id.length > 14 ? `${id.slice(0, 12)}…` : id;
}

/** What of an agent's actor the list shows (AgentActor in the API). */
interface ActorNow {
  queued: number;
  running: number;
  cooldown_until: string | null;
  next_available_at: string | null;
  quota_held_until?: string | null | undefined;
}

const isAhead = (iso: string | null | undefined, now: number) => Boolean(iso && Date.parse(iso) > now);

/**
 * What an agent is doing, in a person's words: its status says idle while its actor works or holds
 * wakeups, so the badge reads from the actor: working, waiting (and why), or idle.
 */
export function agentActivity(agent: { status: string }, actor: ActorNow | null | undefined, now: number): Badge & { title?: string } {
  if (agent.status === 'paused' || agent.status === 'stopped' || !actor) return { label: agent.status, tone: statusTone(agent.status) };
  const queued = actor.queued > 0 ? `${actor.queued} queued` : '';
  if (actor.running > 0) return { label: ['working', queued].filter(Boolean).join(', '), tone: 'info' };
  if (!queued) return { label: 'idle', tone: 'good' };
  if (isAhead(actor.quota_held_until, now)) return { label: `${queued}, quota hold`, tone: 'warn', title: 'Its program\'s shared quota is exhausted until its reset' };
  if (isAhead(actor.cooldown_until, now)) return { label: `${queued}, cooling down`, tone: 'info', title: 'It rests for its cooldown after each run' };
  if (isAhead(actor.next_available_at, now)) return { label: `${queued}, waiting`, tone: 'info', title: 'Its next wakeup is due later (a retry or a coalescing window)' };
  return { label: `${queued}, starting`, tone: 'info' };
}

/** A cooldown that is still running, as "ends in 8s"; one that is over is no cooldown at all. */
export function cooldownLeft(cooldownUntil: string | null | undefined, now: number): string | null {
  return isAhead(cooldownUntil, now) ? `ends ${relativeTime(cooldownUntil, now)}` : null;
}

/** A cost axis's label: "$0.0075", "$0.25", "$2.5", "$12": two significant digits below a dollar, whole dollars from ten. */
export function usdTick(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 1) return `$${Number(usd.toPrecision(2))}`;
  return usd < 10 ? `$${Number(usd.toFixed(2))}` : `$${Math.round(usd)}`;
}

/**
 * Whether a replica's heartbeat is late: it heartbeats three times a lease (src/actors/replicas.ts),
 * so one silent for two of those is lost, and its agents move when its lease runs out (the API then
 * drops it). `expires_at` null: the one SQLite process, which never heartbeats.
 */
export function replicaLost(replica: { heartbeat_at: string; expires_at: string | null }, now: number): boolean {
  if (!replica.expires_at) return false;
  const beat = Date.parse(replica.heartbeat_at);
  const lease = Date.parse(replica.expires_at) - beat;
  return lease > 0 && now - beat > (lease / 3) * 2;
}
