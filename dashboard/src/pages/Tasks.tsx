/**
 * The workspace's tasks as a kanban board. A card moves by drag and drop or its "Move to" menu;
 * either way the move is POST /tasks/:id/move, so the kanban rules and approvals apply.
 */
import { useState, type DragEvent, type FormEvent } from 'react';
import { CreateTaskBody } from '../../../src/domain/schemas.js';
import { api } from '../api';
import { query, useAction, useApi } from '../hooks';
import { Link, navigate, useLocation } from '../router';
import type { Agent, Task, Wakeup } from '../types';
import { Badge, Empty, ErrorBox, Field, fieldError, Loading, Modal } from '../ui';
import { validated } from '../validate';
import { useWorkspace } from '../workspace';
import { assignTask, BOARD_COLUMNS, moveTask, STATE_LABELS } from './taskActions';

const DRAG_TYPE = 'application/x-office-task';
/**
 * The API's largest page. The board shows at most this many tasks, and a card's "why" comes from the
 * workspace's latest this-many wakeups: a task whose last wakeup is older than those shows none.
 */
const PAGE_LIMIT = 1000;

/** The newest wakeup of each task, from one list of the workspace's wakeups (newest first). */
function latestWakeupByTask(wakeups: Wakeup[] | undefined): Map<string, Wakeup> {
  const latest = new Map<string, Wakeup>();
  for (const wakeup of wakeups ?? []) {
    if (wakeup.task_id && !latest.has(wakeup.task_id)) latest.set(wakeup.task_id, wakeup);
  }
  return latest;
}

export function TasksPage() {
  const { workspace } = useWorkspace();
  const { search } = useLocation();
  const includeRoutine = search.get('include_routine') === 'true';
  const ws = workspace?.id;
  const tasks = useApi<Task[]>(ws ? `/api/office/tasks${query({ workspace_id: ws, include_routine: includeRoutine && 'true', limit: PAGE_LIMIT })}` : null);
  const agents = useApi<Agent[]>(ws ? `/api/office/agents${query({ workspace_id: ws })}` : null);
  const wakeups = useApi<Wakeup[]>(ws ? `/api/office/wakeups${query({ workspace_id: ws, limit: PAGE_LIMIT })}` : null);
  const action = useAction();
  const [creating, setCreating] = useState(false);
  const [dragOver, setDragOver] = useState<string | null>(null);

  if (!workspace) return <Loading what="workspace" />;
  const byId = new Map((tasks.data ?? []).map((t) => [t.id, t]));
  const latest = latestWakeupByTask(wakeups.data);
  const agentName = (id: string | null) => (id ? agents.data?.find((a) => a.id === id)?.name ?? id : null);

  const drop = (state: Task['state']) => (event: DragEvent) => {
    event.preventDefault();
    setDragOver(null);
    const id = event.dataTransfer.getData(DRAG_TYPE);
    if (id && byId.get(id)?.state !== state) void action.run(() => moveTask(id, state));
  };

  return (
    <section>
      <header className="page-head">
        <h1>Tasks</h1>
        <div className="actions">
          <label className="toggle">
            <input type="checkbox" name="include_routine" checked={includeRoutine}
              onChange={(e) => navigate(`/office/tasks${query({ include_routine: e.target.checked && 'true' })}`, { replace: true })} />
            Routine tasks
          </label>
          <button type="button" className="primary" onClick={() => setCreating(true)}>New task</button>
        </div>
      </header>
      <ErrorBox error={action.error ?? tasks.error} />
      {tasks.data === undefined ? <Loading what="tasks" /> : (
        <div className="board" aria-label="Task board">
          {BOARD_COLUMNS.map((state) => {
            const column = tasks.data!.filter((t) => t.state === state);
            return (
              <section key={state} className={`column${dragOver === state ? ' over' : ''}`} data-column={state} aria-label={STATE_LABELS[state]}
                onDragOver={(e) => { if (e.dataTransfer.types.includes(DRAG_TYPE)) { e.preventDefault(); setDragOver(state); } }}
                onDragLeave={() => setDragOver((s) => (s === state ? null : s))}
                onDrop={drop(state)}>
                <h3>{STATE_LABELS[state]} <span className="count">{column.length}</span></h3>
                {column.length === 0 ? <p className="hint">Nothing here.</p> : column.map((task) => (
                  <TaskCard key={task.id} task={task} blockers={task.blocked_by.map((id) => byId.get(id) ?? id)}
                    agents={agents.data ?? []} assigneeName={agentName(task.assignee_agent_instance_id)} lastWakeup={latest.get(task.id)}
                    busy={action.busy}
                    onMove={(next) => void action.run(() => moveTask(task.id, next))}
                    onAssign={(agentId) => void action.run(() => assignTask(task.id, agentId))} />
                ))}
              </section>
            );
          })}
        </div>
      )}
      {tasks.data && tasks.data.length === 0 && <Empty>No tasks yet. Create one to give an agent work.</Empty>}
      {creating && agents.data && (
        <NewTaskDialog workspaceId={workspace.id} agents={agents.data} onClose={() => setCreating(false)} />
      )}
    </section>
  );
}

function TaskCard(props: {
  task: Task;
  blockers: Array<Task | string>;
  agents: Agent[];
  assigneeName: string | null;
  lastWakeup: Wakeup | undefined;
  busy: boolean;
  onMove: (state: Task['state']) => void;
  onAssign: (agentId: string | null) => void;
}) {
  const { task } = props;
  const openBlockers = props.blockers.filter((b) => typeof b === 'string' || (b.state !== 'DONE' && b.state !== 'CANCELLED'));
  return (
    <article className="task-card" draggable data-task-id={task.id} data-state={task.state} aria-label={task.title}
      onDragStart={(e) => { e.dataTransfer.setData(DRAG_TYPE, task.id); e.dataTransfer.effectAllowed = 'move'; }}>
      <Link to={`/office/tasks/${task.id}`} className="title">{task.title}</Link>
      <div className="meta">
        {task.workflow === 'routine' && <Badge tone="muted">routine</Badge>}
        {task.requires_approval && <Badge tone="info">needs approval</Badge>}
        {openBlockers.length > 0 && (
          <span className="blockers" data-testid="blockers">
            blocked by {openBlockers.map((b) => typeof b === 'string'
              ? <code key={b}>{b}</code>
              : <Link key={b.id} to={`/office/tasks/${b.id}`}>{b.title}</Link>)}
          </span>
        )}
      </div>
      {props.lastWakeup && (
        <p className="why" data-testid="last-wakeup" title={props.lastWakeup.explain}>{props.lastWakeup.explain}</p>
      )}
      <div className="controls">
        <select aria-label={`Assignee of ${task.title}`} name="assignee" value={task.assignee_agent_instance_id ?? ''} disabled={props.busy}
          onChange={(e) => props.onAssign(e.target.value || null)}>
          <option value="">Unassigned</option>
          {props.agents.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
        </select>
        <select aria-label={`Move ${task.title}`} name="move" value="" disabled={props.busy}
          onChange={(e) => { if (e.target.value) props.onMove(e.target.value as Task['state']); }}>
          <option value="">Move to…</option>
          {BOARD_COLUMNS.filter((s) => s !== task.state).map((s) => <option key={s} value={s}>{STATE_LABELS[s]}</option>)}
          <option value="CANCELLED">{STATE_LABELS.CANCELLED}</option>
        </select>
      </div>
    </article>
  );
}

function NewTaskDialog(props: { workspaceId: string; agents: Agent[]; onClose: () => void }) {
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [assignee, setAssignee] = useState('');
  const [requiresApproval, setRequiresApproval] = useState(false);
  const action = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const created = await action.run(() => api<Task>('POST', '/api/office/tasks', validated(CreateTaskBody, {
      workspace_id: props.workspaceId, title, description, assignee_agent_instance_id: assignee || null, requires_approval: requiresApproval,
    })));
    if (created) props.onClose();
  };
  const titleError = fieldError(action.error, 'title');
  return (
    <Modal title="New task" onClose={props.onClose}>
      <form onSubmit={submit} noValidate>
        <Field label="Title" error={titleError}>
          <input name="title" value={title} onChange={(e) => setTitle(e.target.value)} autoFocus />
        </Field>
        <Field label="Description">
          <textarea name="description" rows={4} value={description} onChange={(e) => setDescription(e.target.value)} />
        </Field>
        <Field label="Assignee" hint="The assignee is woken as soon as the task is created.">
          <select name="assignee" value={assignee} onChange={(e) => setAssignee(e.target.value)}>
            <option value="">Unassigned</option>
            {props.agents.map((a) => <option key={a.id} value={a.id}>{a.name} ({a.role})</option>)}
          </select>
        </Field>
        <label className="check">
          <input type="checkbox" name="requires_approval" checked={requiresApproval} onChange={(e) => setRequiresApproval(e.target.checked)} />
          Requires approval before DONE
        </label>
        <ErrorBox error={titleError ? null : action.error} />
        <footer><button type="submit" className="primary" disabled={action.busy}>Create task</button></footer>
      </form>
    </Modal>
  );
}
