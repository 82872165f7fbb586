/**
 * Who may call a route (API.md, "Trust boundaries"): every route declares one of these levels next
 * to itself (`config: { access }`), the HTTP layer refuses a route that declares none, and one hook
 * (http/auth.ts) asks `personMay` before any body is validated or any handler runs.
 *
 * A member reads everything; works on tasks, comments, approvals and the inbox; wakes agents and
 * pauses or resumes them; creates routines and manages its own; cancels the runs done on its behalf.
 * Everything else, and any executor in any body, is an admin's. A run token (an agent) is judged by
 * its own rules (`agentAllowed`, `agentRead` in http/auth.ts), not by these.
 */
import type { Permission, UserPrincipal } from './governance.js';

export const ROUTE_ACCESS = {
  /** Outside the API token altogether: probes, the dashboard's files, webhooks (checked with their trigger's own secret). */
  public: 'no API credential: probes, the dashboard\'s files, and webhooks signed with their trigger\'s own secret',
  /** A read: every person; a run token as its read rules say. */
  read: 'every credential may read it (a run token only within its own workspace)',
  /** A write every person may make, member or admin. */
  member: 'every person, member or admin',
  /** A member on what it owns (its routines, the runs done on its behalf); the rule that says what it owns runs with the request. */
  owner: 'an admin, or a member on what it owns: its routines, and the runs done on its behalf',
  /** A member may only pause or resume: a body whose only field is `status`. */
  pause_or_resume: 'an admin; a member only to pause or resume (a body whose only field is `status`)',
  admin: 'an admin only: a member gets a 403',
} as const;
export type RouteAccess = keyof typeof ROUTE_ACCESS;

export function isRouteAccess(value: unknown): value is RouteAccess {
  return typeof value === 'string' && Object.hasOwn(ROUTE_ACCESS, value);
}

/**
 * The body fields that choose an executor: choosing one is choosing what runs on the host, so it is
 * an admin's on every route, whatever the route's own level (an agent's, a project's or a workspace's
 * default, a task's override).
 */
export const EXECUTOR_FIELDS = ['executor', 'default_executor'] as const;

/** Whether a person may call a route of this level with this (parsed, not yet validated) body. */
export function personMay(principal: UserPrincipal, access: RouteAccess, body: unknown): Permission {
  if (principal.role === 'admin' || access === 'public' || access === 'read') return { allowed: true };
  const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : [];
  const executorField = fields.find((field) => (EXECUTOR_FIELDS as readonly string[]).includes(field));
  if (executorField) return refused(principal, `'${executorField}' chooses what runs on the host; only an admin may set an executor`);
  if (access === 'admin') return refused(principal, 'only an admin may do this');
  if (access === 'pause_or_resume' && !(fields.length === 1 && fields[0] === 'status')) {
    return refused(principal, `a member may only pause or resume an agent (a body whose only field is status); this one sets ${fields.join(', ') || 'nothing'}`);
  }
  return { allowed: true };
}

function refused(principal: UserPrincipal, why: string): Permission {
  return { allowed: false, reason: `token ${principal.tokenId} is a member: ${why}` };
}
