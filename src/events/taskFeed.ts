/**
 * Task changes on the live feed: a task created, assigned or moved, a comment, an approval asked
 * for or decided. The dashboard's board, task page and inbox re-read on it, whoever made the change
 * (another person, an agent's run, the CLI). Feed entries are relayed, so every replica's stream has them.
 */
import type { DomainEvent, EventType } from '../domain/events.js';
import type { LiveFeed } from './liveFeed.js';

const TASK_EVENTS: ReadonlySet<EventType> = new Set<EventType>([
  'task.created', 'task.assigned', 'task.moved', 'comment.created', 'approval.created', 'approval.resolved',
]);

/** Publishes a `task` feed entry for each committed task change; returns how to stop. */
export function feedTaskChanges(committed: { observe(observer: (events: readonly DomainEvent[]) => void): () => void }, feed: LiveFeed): () => void {
  return committed.observe((events) => {
    for (const event of events) {
      if (!TASK_EVENTS.has(event.type)) continue;
      const taskId = (event.payload as { task_id?: string | null }).task_id ?? null;
      feed.trigger.publish({ item: { kind: 'task', task_id: taskId } });
    }
  });
}
