/**
 * Pure formatting for the pages: times, durations and the wakeup status badges. No DOM here, so
 * the unit tests can import it.
 */

export type Tone = 'neutral' | 'info' | 'good' | 'warn' | 'bad' | 'muted';

export interface Badge {
  label: string;
  tone: Tone;
}

/** The spec's wording for each cancel reason ("Cancelled - assignee changed", ...). */
const CANCEL_LABELS: Record<string, string> = {
  assignee_changed: 'Cancelled - assignee changed',
  task_terminal: 'Cancelled - task completed',
  retry_task_cancelled: 'Cancelled - task cancelled',
  retry_stale_assignee: 'Cancelled - retry stale',
  task_not_found: 'Cancelled - task not found',
  review_participant_changed: 'Cancelled - reviewer changed',
};

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

export function shortId(id: string | null | undefined): string {
  if (!id) return '-';
  return id.length > 14 ? `${id.slice(0, 12)}…` : id;
}
