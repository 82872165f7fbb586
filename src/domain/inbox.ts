import type { InboxItem } from './types.js';

/**
 * How many resolved items a list shows, newest first: enough for "what happened lately", while an
 * open item is always listed, whatever its age (API.md, "Open inbox items are never crowded out").
 */
export const RESOLVED_INBOX_ITEMS_LISTED = 500;

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
