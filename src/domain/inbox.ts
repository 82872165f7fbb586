import type { InboxItem } from './types.js';

/**
 * Why a person may not mark this inbox item resolved by hand, or null when they may. An approval
 * is decided, not dismissed: resolving its approval moves its task, and resolves the item with it.
 */
export function manualResolveRefusal(item: InboxItem): string | null {
  if (item.kind === 'approval') {
    return `inbox item '${item.id}' is an approval: decide it with POST /api/office/approvals/${item.ref_id}/resolve`;
  }
  if (item.status !== 'open') return `inbox item '${item.id}' is already ${item.status}`;
  return null;
}
