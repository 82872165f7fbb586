/** The inbox: what a person must see (an agent's error, a pause, a setup error, an approval), and marking it dealt with. */
import type { Logger } from 'pino';
import type { ActorFields } from '../domain/governance.js';
import { manualResolveRefusal } from '../domain/inbox.js';
import type { InboxItem } from '../domain/types.js';
import type { Clock } from '../domain/clock.js';
import type { Store, Tx } from '../persistence/store.js';
import { recordDecision } from './activity.js';
import { conflict, notFound } from './errors.js';
import { newId } from './ids.js';

/** What an inbox item says: everything but its id, its state and its time, which every item gets the same way. */
export type InboxNotice = Omit<InboxItem, 'id' | 'status' | 'created_at'>;

/** Puts an open item in the inbox, in the transaction of what it is about. */
export async function raiseInboxItem(tx: Tx, notice: InboxNotice, now: number): Promise<InboxItem> {
  const item: InboxItem = { id: newId('inb'), ...notice, status: 'open', created_at: now };
  await tx.inbox.insert(item);
  return item;
}

/** A person marks an item as seen and dealt with; `by`: the person, whom the activity entry names. */
export function resolveInboxItem(deps: { store: Store; clock: Clock; log: Logger }, id: string, by: ActorFields): Promise<InboxItem> {
  return deps.store.transaction(async (tx) => {
    const item = await tx.inbox.get(id);
    if (!item) throw notFound('inbox item', id);
    const refusal = manualResolveRefusal(item);
    // A second person resolving the same item at once finds it no longer open.
    if (refusal || !(await tx.inbox.resolve(id))) throw conflict(refusal ?? `inbox item '${id}' is already resolved`);
    await recordDecision(tx, deps.log, {
      workspace_id: item.workspace_id, code: 'inbox_item_resolved', agent_id: item.agent_id, task_id: item.task_id,
      run_id: item.kind === 'agent.error' ? item.ref_id : null, ...by,
      message: `resolved by ${by.actor_id}: ${item.title}`, details: { inbox_item_id: item.id, kind: item.kind },
    }, deps.clock.now());
    return { ...item, status: 'resolved' };
  });
}
