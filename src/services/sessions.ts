/**
 * Dashboard sign-in: a person's API token is exchanged once for a session, and the browser's
 * cookie carries the session's secret from then on. A session acts as the principal of the token
 * it was exchanged for, and only while that token is still good: a revoked named token, or a
 * bootstrap OFFICE_API_TOKEN that has since been changed, ends its sessions at their next request.
 */
import type { Logger } from 'pino';
import { hashApiToken } from '../domain/apiTokens.js';
import { BOOTSTRAP_ADMIN, BOOTSTRAP_ADMIN_ID, type UserPrincipal } from '../domain/governance.js';
import { hashSessionSecret, newSessionSecret, type Session } from '../domain/sessions.js';
import { safeEqual } from '../domain/webhookSignature.js';
import type { Clock } from '../domain/clock.js';
import type { Store, Tx } from '../persistence/store.js';
import { conflict } from './errors.js';
import { newId } from './ids.js';

export interface SessionServiceDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  apiToken: string | undefined;
  ttlMs: number;
}

export interface SignedIn {
  /** What the cookie carries; never stored. */
  secret: string;
  session: Session;
}

export class SessionService {
  constructor(private readonly deps: SessionServiceDeps) {}

  /** Sessions exist only where a token is required; without OFFICE_API_TOKEN every local caller is the admin. */
  get configured(): boolean {
    return this.deps.apiToken !== undefined;
  }

  /** Starts a session for a person who just proved a token (the request's principal). */
  async signIn(principal: UserPrincipal): Promise<SignedIn> {
    const { store, clock, log, apiToken, ttlMs } = this.deps;
    if (!apiToken) throw conflict('no OFFICE_API_TOKEN is set, so this scheduler needs no sign-in: every local caller is the admin');
    const secret = newSessionSecret();
    const now = clock.now();
    const session = await store.transaction(async (tx) => {
      const token = await this.tokenAsItIsNow(tx, principal.tokenId);
      if (token === null) throw conflict(`token ${principal.tokenId} cannot start a session: it is no longer valid`);
      // Expired sessions are forgotten here, the only moment sessions are written anyway.
      await tx.sessions.removeExpired(now);
      const row: Session = {
        id: newId('ses'), secret_hash: hashSessionSecret(secret), token_id: principal.tokenId,
        credential_hash: token.credentialHash, created_at: now, expires_at: now + ttlMs,
      };
      await tx.sessions.insert(row);
      return row;
    });
    log.info({ session_id: session.id, token_id: session.token_id, expires_at: new Date(session.expires_at).toISOString() }, 'dashboard session started');
    return { secret, session };
  }

  /** The session a cookie's secret names and the principal it acts as; null when it is unknown, expired, or its token is no longer good. */
  async resolve(secret: string): Promise<{ session: Session; principal: UserPrincipal } | null> {
    return this.deps.store.read(async (tx) => {
      const session = await tx.sessions.live(hashSessionSecret(secret), this.deps.clock.now());
      if (!session) return null;
      const principal = await this.principalOf(tx, session);
      return principal ? { session, principal } : null;
    });
  }

  async signOut(session: Session): Promise<void> {
    await this.deps.store.transaction((tx) => tx.sessions.remove(session.id));
    this.deps.log.info({ session_id: session.id, token_id: session.token_id }, 'dashboard session ended: signed out');
  }

  /**
   * What a token id stands for now: its principal and the hash of its credential; null when it
   * stands for nothing valid (a revoked or unknown named token; no bootstrap token configured).
   */
  private async tokenAsItIsNow(tx: Tx, tokenId: string): Promise<{ principal: UserPrincipal; credentialHash: string } | null> {
    const { apiToken } = this.deps;
    if (tokenId === BOOTSTRAP_ADMIN_ID) return apiToken ? { principal: BOOTSTRAP_ADMIN, credentialHash: hashApiToken(apiToken) } : null;
    const token = await tx.tokens.get(tokenId);
    if (!token || token.revoked_at !== null) return null;
    return { principal: { kind: 'user', tokenId: token.id, role: token.role }, credentialHash: token.token_hash };
  }

  /**
   * The session's principal, checked against its token as it is now: the credential it was
   * exchanged for must still be the one its token id stands for (compared in constant time: a
   * changed OFFICE_API_TOKEN has the same id, "admin", and a different hash).
   */
  private async principalOf(tx: Tx, session: Session): Promise<UserPrincipal | null> {
    const token = await this.tokenAsItIsNow(tx, session.token_id);
    return token && safeEqual(token.credentialHash, session.credential_hash) ? token.principal : null;
  }
}
