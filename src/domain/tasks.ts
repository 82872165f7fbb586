import type { Task } from './types.js';

/** A new TODO task with every column at its default; callers set what they know. */
export function newTask(required: Pick<Task, 'id' | 'workspace_id' | 'title'>, now: number, fields: Partial<Task> = {}): Task {
  return {
    project_id: null,
    parent_id: null,
    description: '',
    state: 'TODO',
    assignee_agent_instance_id: null,
    requires_approval: false,
    executor: null,
    workflow: 'office',
    origin: 'user',
    origin_id: null,
    checkout_agent_id: null,
    checkout_wakeup_id: null,
    checkout_at: null,
    assigned_at: fields.assignee_agent_instance_id ? now : null,
    archived_at: null,
    completed_at: null,
    created_at: now,
    updated_at: now,
    unattended: false,
    on_behalf_of: null,
    blocked_by: [],
    reviewers: [],
    ...required,
    ...fields,
  };
}
