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

/** A member manages only the routines it owns; an admin manages every routine. */
export function mayManageRoutine(principal: Principal, routine: { id: string; owner_id: string | null }): Permission {
  if (principal.kind !== 'user') return { allowed: false, reason: 'a run token may not manage routines' };
  if (principal.role === 'admin') return { allowed: true };
  if (routine.owner_id === principal.tokenId) return { allowed: true };
  return { allowed: false, reason: `routine ${routine.id} is owned by ${routine.owner_id ?? 'nobody'}; a member may manage only the routines it owns` };
}
