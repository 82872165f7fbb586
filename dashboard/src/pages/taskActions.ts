/** The writes the board and the task page share: every move goes through the kanban route. */
import { api } from '../api';
import type { Task } from '../types';

/** The board's columns, in the order work flows. CANCELLED and ARCHIVED tasks leave the board. */
export const BOARD_COLUMNS = ['TODO', 'IN_PROGRESS', 'IN_REVIEW', 'BLOCKED', 'DONE'] as const satisfies readonly Task['state'][];

export const STATE_LABELS: Record<Task['state'], string> = {
  TODO: 'To do', IN_PROGRESS: 'In progress', IN_REVIEW: 'In review', BLOCKED: 'Blocked', DONE: 'Done', CANCELLED: 'Cancelled', ARCHIVED: 'Archived',
};

/** POST /tasks/:id/move, so kanban rules and approvals apply (a requires_approval task lands in IN_REVIEW). */
export function moveTask(taskId: string, state: Task['state']): Promise<Task> {
  return api<Task>('POST', `/api/office/tasks/${taskId}/move`, { state });
}

export function assignTask(taskId: string, agentId: string | null): Promise<Task> {
  return api<Task>('PATCH', `/api/office/tasks/${taskId}`, { assignee_agent_instance_id: agentId });
}
