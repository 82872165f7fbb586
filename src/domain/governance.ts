/**
 * Who is calling, and what a caller may do to routines and their runs (API.md, "Governance").
 * Rules only: the HTTP layer resolves the principal, services ask these functions.
 */
export type Role = 'admin' | 'member';

/** A person's credential: the bootstrap `OFFICE_API_TOKEN` (id "admin"), a named token, or the local caller when no token is configured. */
export interface UserPrincipal {
  kind: 'user';
  /** The token's id; "admin" for the bootstrap token and for the local caller. This is what `owner_id` records. */
  tokenId: string;
  role: Role;
}

/** An agent during its run, through its `OFFICE_RUN_TOKEN`. */
export interface AgentPrincipal {
  kind: 'agent';
  agentId: string;
  workspaceId: string;
  runId: string;
}

export type Principal = UserPrincipal | AgentPrincipal;

export const BOOTSTRAP_ADMIN_ID = 'admin';
export const BOOTSTRAP_ADMIN: UserPrincipal = Object.freeze({ kind: 'user', tokenId: BOOTSTRAP_ADMIN_ID, role: 'admin' }) as UserPrincipal;

export type Permission = { allowed: true } | { allowed: false; reason: string };

/** Who did it, as an activity entry names them (API.md, "People are named in the audit"). */
export interface ActorFields {
  actor_type: 'user' | 'agent';
  /** A person's token id ("admin" for the bootstrap token and the open mode), or an agent's id. */
  actor_id: string;
}

/** The actor of an entry written for what this caller did. */
export function actorFieldsOf(principal: Principal): ActorFields {
  return principal.kind === 'user' ? { actor_type: 'user', actor_id: principal.tokenId } : { actor_type: 'agent', actor_id: principal.agentId };
}

/** A member manages only the routines it owns; an admin manages every routine. */
export function mayManageRoutine(principal: Principal, routine: { id: string; owner_id: string | null }): Permission {
  if (principal.kind !== 'user') return { allowed: false, reason: 'a run token may not manage routines' };
  if (principal.role === 'admin') return { allowed: true };
  if (routine.owner_id === principal.tokenId) return { allowed: true };
  return { allowed: false, reason: `routine ${routine.id} is owned by ${routine.owner_id ?? 'nobody'}; a member may manage only the routines it owns` };
}

/** The API's tokens: a named credential with a role. The secret itself is never stored (see hashApiToken). */
export interface ApiToken {
  id: string;
  name: string;
  role: Role;
  /** sha256 of the secret, hex. */
  token_hash: string;
  created_at: number;
  revoked_at: number | null;
}

/** Why a routine paused when its owner's token was revoked; an admin's new owner_id lifts it. */
export const REVOKED_OWNER_PAUSE_REASON = "owner's token was revoked";

/** Named tokens are issued, listed and revoked by an admin only. */
export function mayManageTokens(principal: Principal): Permission {
  if (principal.kind !== 'user') return { allowed: false, reason: 'a run token may not manage API tokens' };
  if (principal.role !== 'admin') return { allowed: false, reason: `token ${principal.tokenId} is a member; only an admin may create, list or revoke API tokens` };
  return { allowed: true };
}

/**
 * Who owns a routine a principal creates: itself, taken from the credential. Only an admin may name
 * another owner; a member naming anyone but itself is refused (not silently ignored, so a script that
 * expects its owner_id to hold learns that it does not).
 */
export function ownerForNewRoutine(principal: Principal, requested: string | undefined): { owner: string } | { refused: string } {
  if (principal.kind !== 'user') return { refused: 'a run token may not create routines' };
  if (requested === undefined || requested === principal.tokenId) return { owner: principal.tokenId };
  if (principal.role === 'admin') return { owner: requested };
  return { refused: `owner_id '${requested}': a member's routines are owned by its own token (${principal.tokenId}); only an admin may set owner_id` };
}

/** Who a comment is by: a person's token, or an agent. */
export interface CommentAuthor {
  author_type: 'user' | 'agent';
  author_id: string;
}

/**
 * The author of a comment is its credential (API.md, "Trust boundaries"): a named token writes as
 * itself (user, its id), a run token as its agent. A body may name that same author; naming another
 * is refused, so no one speaks as an agent or a colleague. Only the bootstrap admin (and the open
 * mode, which is the admin) may name any author: it is how imports and scripts record who said what.
 */
export function commentAuthorOf(
  principal: Principal, named: { author_type?: CommentAuthor['author_type'] | undefined; author_id?: string | undefined },
): { author: CommentAuthor } | { refused: string } | { invalid: { field: string; message: string } } {
  if (principal.kind === 'user' && principal.tokenId === BOOTSTRAP_ADMIN_ID) {
    const type = named.author_type ?? 'user';
    if (named.author_id === undefined && type === 'agent') return { invalid: { field: 'author_id', message: 'name the agent whose comment this is' } };
    return { author: { author_type: type, author_id: named.author_id ?? BOOTSTRAP_ADMIN_ID } };
  }
  const own: CommentAuthor = principal.kind === 'agent'
    ? { author_type: 'agent', author_id: principal.agentId }
    : { author_type: 'user', author_id: principal.tokenId };
  const namesAnother = (named.author_type !== undefined && named.author_type !== own.author_type)
    || (named.author_id !== undefined && named.author_id !== own.author_id);
  if (!namesAnother) return { author: own };
  const who = principal.kind === 'agent' ? `a run token's comment is its agent's (${own.author_id})` : `token ${own.author_id}'s comment is its own`;
  return { refused: `${who}; it may not be written as ${named.author_type ?? own.author_type} ${named.author_id ?? own.author_id} (leave author_type and author_id out)` };
}

/**
 * A routine runs on behalf of its owner, who must be someone that can still be asked: a live named
 * token, or the bootstrap admin. Null when `ownerId` may own it; else why not (a 409, on create as
 * on PATCH). `token` is the named token of that id, if there is one.
 */
export function ownerRefusal(ownerId: string, token: Pick<ApiToken, 'revoked_at'> | undefined): string | null {
  if (ownerId === BOOTSTRAP_ADMIN_ID) return null;
  if (!token) return `owner_id '${ownerId}' names no API token; a routine is owned by a live token or "${BOOTSTRAP_ADMIN_ID}"`;
  if (token.revoked_at !== null) return `owner_id '${ownerId}' is a revoked token; give the routine an owner whose token is live`;
  return null;
}

/** Giving an existing routine another owner is an admin's act. */
export function mayReassignOwner(principal: Principal, routine: { id: string; owner_id: string }, requested: string): Permission {
  if (requested === routine.owner_id) return { allowed: true };
  if (principal.kind === 'user' && principal.role === 'admin') return { allowed: true };
  return { allowed: false, reason: `owner_id '${requested}': only an admin may give routine ${routine.id} another owner` };
}

/**
 * What a PATCH means for a routine's owner. A routine whose owner's token is revoked stays paused
 * until an admin gives it a new owner; that hand-over resumes a routine the revocation paused (it
 * was active until then), unless the same PATCH says which status it wants.
 */
export function ownerHandOver(
  routine: { id: string; owner_id: string; status: string; paused_reason: string | null },
  patch: { owner_id?: string | undefined; status?: string | undefined },
  revoked: { current: boolean; requested: boolean },
): { resume: boolean } | { refused: string } {
  const handedOver = patch.owner_id !== undefined && patch.owner_id !== routine.owner_id;
  if (handedOver && revoked.requested) return { refused: `owner_id '${patch.owner_id}' is a revoked token; give routine ${routine.id} an owner whose token is live` };
  if (!handedOver && patch.status === 'active' && revoked.current) {
    return { refused: `routine ${routine.id} is owned by the revoked token ${routine.owner_id}; an admin resumes it by giving it a new owner (PATCH owner_id)` };
  }
  const pausedByRevocation = routine.status === 'paused' && routine.paused_reason === REVOKED_OWNER_PAUSE_REASON;
  return { resume: handedOver && pausedByRevocation && patch.status === undefined };
}
