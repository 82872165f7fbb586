/**
 * Named API tokens: issued, listed and revoked by an admin; a request's bearer secret resolved to
 * the person it stands for. Revoking a token pauses the routines it owns and stops the work done on
 * its behalf (API.md, "Governance" and "Trust boundaries").
 */
import type { z } from 'zod';
import { API_TOKEN_PREFIX, hashApiToken, newApiTokenSecret } from '../domain/apiTokens.js';
import {
  BOOTSTRAP_ADMIN, actorFieldsOf, mayManageTokens, type ApiToken, type Principal, type UserPrincipal,
} from '../domain/governance.js';
import { OWNER_REVOKED_REASON } from '../domain/runCancel.js';
import { safeEqual } from '../domain/webhookSignature.js';
import type { CreateTokenBody } from '../domain/tokenSchemas.js';
import type { Store } from '../persistence/store.js';
import type { ServiceDeps } from './deps.js';
import { forbidden, notFound } from './errors.js';
import { newId } from './ids.js';
import type { RoutineCatalogue } from './routines/catalogue.js';
import type { RunCancelService } from './runCancel.js';
import type { WakeupService } from './wakeups.js';

/** A person's credential resolved: who it is, or the named token it was before its revocation. */
export type PersonCredential = { principal: UserPrincipal } | { revoked: ApiToken };

/**
 * The person a bearer secret stands for: the bootstrap OFFICE_API_TOKEN (the admin), or a named
 * token found by the hash of its secret. Null when it is neither (it may still be a run token).
 */
export async function personOfSecret(store: Store, apiToken: string | undefined, secret: string): Promise<PersonCredential | null> {
  if (apiToken && safeEqual(secret, apiToken)) return { principal: BOOTSTRAP_ADMIN };
  if (!secret.startsWith(API_TOKEN_PREFIX)) return null;
  const hash = hashApiToken(secret);
  const token = await store.read((tx) => tx.tokens.byHash(hash));
  // Found by the hash through an index; compared again in constant time so that no byte-by-byte
  // comparison of secret material ever decides, whatever the database's lookup does.
  if (!token || !safeEqual(token.token_hash, hash)) return null;
  if (token.revoked_at !== null) return { revoked: token };
  return { principal: { kind: 'user', tokenId: token.id, role: token.role } };
}

/** A token as listed: never its hash. */
export type TokenView = Omit<ApiToken, 'token_hash'>;
const viewOf = ({ token_hash: _hash, ...rest }: ApiToken): TokenView => rest;

export class TokenService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly routines: Pick<RoutineCatalogue, 'pauseRoutinesOfRevokedToken'>,
    private readonly wakeups: Pick<WakeupService, 'cancelOnBehalfOf'>,
    private readonly runCancels: Pick<RunCancelService, 'stopRunsOnBehalfOf'>,
  ) {}

  /** The secret is returned here once; only its hash is kept. */
  async create(principal: Principal, body: z.output<typeof CreateTokenBody>): Promise<Omit<TokenView, 'revoked_at'> & { token: string }> {
    requireTokenAdmin(principal);
    const secret = newApiTokenSecret();
    const token: ApiToken = {
      id: newId('tok'), name: body.name, role: body.role, token_hash: hashApiToken(secret), created_at: this.deps.clock.now(), revoked_at: null,
    };
    await this.deps.store.transaction(async (tx) => {
      await tx.tokens.insert(token);
      tx.afterCommit(() => this.deps.log.info({ token_id: token.id, role: token.role, by: tokenIdOf(principal) }, `API token '${token.name}' created`));
    });
    const { revoked_at: _revoked, ...view } = viewOf(token);
    return { ...view, token: secret };
  }

  async list(principal: Principal): Promise<TokenView[]> {
    requireTokenAdmin(principal);
    return (await this.deps.store.read((tx) => tx.tokens.list())).map(viewOf);
  }

  /**
   * Revokes the token, pauses the routines it owns, cancels the wakeups done on its behalf that have
   * not started (owner_revoked) and stops their running runs, in one transaction: from the commit on,
   * the token is a 401, none of its routines fires, and nothing runs for it any more (the sessions
   * are stopped after commit). Revoking a revoked token changes nothing.
   */
  async revoke(principal: Principal, id: string): Promise<void> {
    requireTokenAdmin(principal);
    await this.deps.store.transaction(async (tx) => {
      const token = await tx.tokens.get(id);
      if (!token) throw notFound('API token', id);
      const now = this.deps.clock.now();
      if (!(await tx.tokens.revoke(id, now))) return;
      // Its dashboard sessions go with it (each request checks the token as well: services/sessions.ts).
      const sessions = await tx.sessions.removeForToken(id);
      tx.afterCommit(() => this.deps.log.info({ token_id: id, by: tokenIdOf(principal), sessions_ended: sessions }, `API token '${token.name}' revoked`));
      await this.routines.pauseRoutinesOfRevokedToken(tx, token, tokenIdOf(principal), now);
      const by = actorFieldsOf(principal);
      const wakeups = await this.wakeups.cancelOnBehalfOf(tx, id, OWNER_REVOKED_REASON, now, by);
      const runs = await this.runCancels.stopRunsOnBehalfOf(tx, id, by);
      if (wakeups.length + runs.length > 0) {
        tx.afterCommit(() => this.deps.log.warn({ token_id: id, wakeups_cancelled: wakeups.length, runs_stopped: runs.length }, `work on behalf of revoked token '${token.name}' stopped`));
      }
    });
  }
}

function requireTokenAdmin(principal: Principal): void {
  const permission = mayManageTokens(principal);
  if (!permission.allowed) throw forbidden(permission.reason);
}

function tokenIdOf(principal: Principal): string | null {
  return principal.kind === 'user' ? principal.tokenId : null;
}
