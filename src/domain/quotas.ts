/**
 * Shared quotas (API.md, "A quota is shared by everyone who uses it"): when one session's failure
 * names when its program's quota resets, every agent whose executor has the same quota key waits
 * for that reset, with no retry spent, and the agents start after it spread out, not all at once.
 */
import type { AgentProgramKind } from './agentPrograms.js';

export interface Quota {
  key: string;
  kind: AgentProgramKind;
  /** The reset the program named (before the buffer); null when it was never exhausted. */
  exhausted_until: number | null;
  /** When held agents may start: the reset plus OFFICE_RATE_LIMIT_BUFFER_SEC. */
  release_at: number | null;
  /** The limit message that exhausted it. */
  reason: string | null;
  exhausted_by_run_id: string | null;
  /** Release slots handed out since it was exhausted. */
  holds: number;
  /** Agents that shared the key when it was exhausted: the spread's divisor. */
  sharing: number;
  /** What the program last said about a limit that is near (Claude Code's allowed_warning), and when. */
  warning: string | null;
  warned_at: number | null;
  updated_at: number;
  /** The release this exhaustion was announced in the inbox for. */
  announced_release_at?: number | null;
}

/** A quota exhausted now, as the claim reads it beside the wakeup. */
export type ExhaustedQuota = Pick<Quota, 'key' | 'kind' | 'exhausted_until' | 'release_at'>;

/**
 * When an agent held by a quota may start: the release, plus its share of the spread. The agent
 * whose session hit the limit retries at the release itself (slot 0); the k-th agent held after it
 * starts k × spread ÷ sharing later, so ten agents on one subscription start a few seconds apart in
 * the order they were held, which is the order they claimed, and the last within the spread.
 */
export function releaseTimeOf(quota: Pick<Quota, 'release_at' | 'sharing'>, slot: number, spreadMs: number): number {
  const sharing = Math.max(1, quota.sharing);
  const share = Math.min(slot, sharing - 1) / sharing;
  return (quota.release_at ?? 0) + Math.round(share * spreadMs);
}

/** The skip_reason of a wakeup back in the queue because its program's quota is exhausted. */
export const QUOTA_HOLD = 'quota_exhausted';

/** The explain sentence of a wakeup a quota holds. */
export function quotaHoldSentence(kind: string, exhaustedUntil: number, startsAt: number): string {
  return `waiting for the ${kind} quota to reset at ${new Date(exhaustedUntil).toISOString()}; starts at ${new Date(startsAt).toISOString()}`;
}
