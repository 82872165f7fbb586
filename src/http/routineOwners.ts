/**
 * Owner checks for the routine writes (API.md, "Governance"): a member changes, pauses, deletes and
 * fires only the routines it owns, and edits only their triggers; anyone else's is a 403 that says
 * why. The rules are governance.ts's; this only finds the routine a request names.
 */
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { mayManageRoutine, mayReassignOwner, ownerForNewRoutine } from '../domain/governance.js';
import type { Routine } from '../domain/routines.js';
import type { Store } from '../persistence/store.js';
import { forbidden } from '../services/errors.js';

/** What the request's `:id` names: a routine, or one of its triggers. */
export type ManagedResource = 'routine' | 'routine_trigger';

/** A preHandler that refuses a principal who may not manage the routine; an unknown id is left to the handler's 404. */
export function requireRoutineManager(store: Store, resource: ManagedResource): preHandlerAsyncHookHandler {
  return async (request: FastifyRequest) => {
    const id = (request.params as { id: string }).id;
    const routine = await store.query(async (tx): Promise<Routine | undefined> => {
      const routineId = resource === 'routine' ? id : (await tx.routines.getTrigger(id))?.routine_id;
      return routineId === undefined ? undefined : tx.routines.get(routineId);
    });
    if (!routine) return;
    const permission = mayManageRoutine(request.principal, routine);
    if (!permission.allowed) throw forbidden(permission.reason);
    const requestedOwner = (request.body as { owner_id?: string } | undefined)?.owner_id;
    if (requestedOwner !== undefined) {
      const reassign = mayReassignOwner(request.principal, routine, requestedOwner);
      if (!reassign.allowed) throw forbidden(reassign.reason);
    }
  };
}

/** The owner of a routine the request creates: the credential's token; a body's owner_id only from an admin. */
export function ownerOfNewRoutine(request: FastifyRequest, requested: string | undefined): string {
  const owner = ownerForNewRoutine(request.principal, requested);
  if ('refused' in owner) throw forbidden(owner.refused);
  return owner.owner;
}
