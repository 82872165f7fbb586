/** The writes the board and the task page share: every move goes through the kanban route. */
import { call, office } from '../api';
import type { Task } from '../types';

/** The board's columns, in the order work flows. CANCELLED and ARCHIVED tasks leave the board. */
export const BOARD_COLUMNS = ['TODO', 'IN_PROGRESS', 'IN_REVIEW', 'BLOCKED', 'DONE'] as const satisfies readonly Task['state'][];

export const STATE_LABELS: Record<Task['state'], string> = {
  TODO: 'To do', IN_PROGRESS: 'In progress', IN_REVIEW: 'In review', BLOCKED: 'Blocked', DONE: 'Done', CANCELLED: 'Cancelled', ARCHIVED: 'Archived',
};

/** POST /tasks/:id/move, so kanban rules and approvals apply (a requires_approval task lands in IN_REVIEW). */
export function moveTask(taskId: string, state: Task['state']): Promise<Task> {
  return call(office.POST('/api/office/tasks/{id}/move', { params: { path: { id: taskId } }, body: { state } }));
}

export function assignTask(taskId: string, agentId: string | null): Promise<Task> {
  return call(office.PATCH('/api/office/tasks/{id}', { params: { path: { id: taskId } }, body: { assignee_agent_instance_id: agentId } }));
}
