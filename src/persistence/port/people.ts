/**
 * People and what they see: API tokens, dashboard sessions, the activity log and the inbox (the
 * port's rules: persistence/store.ts).
 *
 * Isolation: a token is found by its secret's hash only while unrevoked, and `revoke` is
 * compare-and-set on `revoked_at`, so revocation happens once and what it stops is decided on its
 * answer. Sessions are found only while unexpired. Activity and inbox rows are appended and never
 * rewritten; an inbox item is resolved by compare-and-set on its open state.
 */
import type { PagePosition } from '../../domain/pagination.js';
import type { ActivityCode } from '../../domain/activityCodes.js';
import type { ActivityEntry, InboxItem, NewActivity } from '../../domain/types.js';
import type { Routine } from '../../domain/routines.js';
import type { Session } from '../../domain/sessions.js';
import type { ApiToken } from '../../domain/governance.js';

/** Named API tokens (API.md, "Governance"). Only the secret's hash is stored. */
export interface TokenRepo {
  insert(token: ApiToken): Promise<void>;
  get(id: string): Promise<ApiToken | undefined>;
  /** The token whose secret hashes to `hash`, revoked or not: the caller tells a revoked one apart. */
  byHash(hash: string): Promise<ApiToken | undefined>;
  /** Every token, revoked ones too, oldest first. */
  list(): Promise<ApiToken[]>;
  /** Marks the token revoked, in one statement; false when it does not exist or was revoked already. */
  revoke(id: string, at: number): Promise<boolean>;
  /**
   * Pauses, in one statement, the active routines `ownerId` owns, with `reason`; returns them as
   * they are now. Paused or archived routines are left as they are.
   */
  pauseRoutinesOwnedBy(ownerId: string, reason: string, at: number): Promise<Routine[]>;
}

/** Dashboard sessions (sign-in): found by the hash of the cookie's secret, and only while unexpired. */
export interface SessionRepo {
  insert(session: Session): Promise<void>;
  /** The session whose secret hashes to `secretHash`, if it has not expired at `now`. */
  live(secretHash: string, now: number): Promise<Session | undefined>;
  /** Signs one session out. */
  remove(id: string): Promise<void>;
  /** Ends every session exchanged for a token (its revocation); returns how many. */
  removeForToken(tokenId: string): Promise<number>;
  /** Forgets sessions that expired at or before `now`; returns how many. */
  removeExpired(now: number): Promise<number>;
}

export interface ActivityFilter {
  workspace_id?: string | undefined;
  code?: string | undefined;
  wakeup_id?: string | undefined;
  agent_id?: string | undefined;
  /** Only unattended entries (true) or only attended ones (false). */
  unattended?: boolean | undefined;
  limit?: number | undefined;
  /** Rows strictly after this position in the list's order: the page a cursor names (domain/pagination.ts). */
  after?: PagePosition | undefined;
}

export interface ActivityRepo {
  insert(entry: NewActivity, at: number): Promise<void>;
  countSince(workspaceId: string, code: ActivityCode, since: number): Promise<number>;
}

export interface InboxRepo {
  insert(item: InboxItem): Promise<void>;
  resolveByRef(refId: string): Promise<void>;
  get(id: string): Promise<InboxItem | undefined>;
  /** Marks one open item resolved; false when it was not open (already resolved, or no such item). */
  resolve(id: string): Promise<boolean>;
}
