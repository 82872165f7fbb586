/**
 * The workspace's tasks as a kanban board. A card moves by drag and drop or its "Move to" menu;
 * either way the move is POST /tasks/:id/move, so the kanban rules and approvals apply.
 */
import { useState, type DragEvent, type FormEvent } from 'react';
import { CreateTaskBody } from '../../../src/domain/schemas.js';
import { call, office } from '../api';
import { query, useAction, useApi } from '../hooks';
import { Link, navigate, useLocation } from '../router';
import type { Agent, Run, Task, Wakeup } from '../types';
import { Badge, Empty, ErrorBox, Field, fieldError, ApiSentence, Loading, Modal, StatusBadge, Time } from '../ui';
import { validated } from '../validate';
import { useWorkspace } from '../workspace';
import { assignTask, BOARD_COLUMNS, moveTask, STATE_LABELS } from './taskActions';

const DRAG_TYPE = 'application/x-office-task';
/**
 * The API's largest page. The board shows at most this many tasks, and a card's "why" comes from the
 * workspace's latest this-many wakeups: a task whose last wakeup is older than those shows none.
 */
const PAGE_LIMIT = 1000;

/** The newest of each task's items (wakeups, runs), from one list of the workspace's, newest first. */
function latestByTask<T extends { task_id: string | null }>(items: T[] | undefined): Map<string, T> {
  const latest = new Map<string, T>();
  for (const item of items ?? []) {
    if (item.task_id && !latest.has(item.task_id)) latest.set(item.task_id, item);
  }
  return latest;
}

const LIVE_RUN = new Set<Run['status']>(['queued', 'running']);

export function TasksPage() {
  const { workspace } = useWorkspace();
  const { search } = useLocation();
  const includeRoutine = search.get('include_routine') === 'true';
  const ws = workspace?.id;
  const tasks = useApi<Task[]>(ws ? `/api/office/tasks${query({ workspace_id: ws, include_routine: includeRoutine && 'true', limit: PAGE_LIMIT })}` : null);
  const agents = useApi<Agent[]>(ws ? `/api/office/agents${query({ workspace_id: ws })}` : null);
  const wakeups = useApi<Wakeup[]>(ws ? `/api/office/wakeups${query({ workspace_id: ws, limit: PAGE_LIMIT })}` : null);
  const runs = useApi<Run[]>(ws ? `/api/office/runs${query({ workspace_id: ws, limit: PAGE_LIMIT })}` : null);
  const action = useAction();
  const [creating, setCreating] = useState(false);
  const [dragOver, setDragOver] = useState<string | null>(null);

  if (!workspace) return <Loading what="workspace" />;
  const byId = new Map((tasks.data ?? []).map((t) => [t.id, t]));
  const latest = latestByTask(wakeups.data);
  const lastRuns = latestByTask(runs.data);
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
      {tasks.data === undefined ? <Loading what="tasks" /> : tasks.data.length === 0 ? (
        <Empty>Nothing here yet. <button type="button" className="link" onClick={() => setCreating(true)}>Create a task</button> to give an agent work.</Empty>
      ) : (
        <div className="board" aria-label="Task board">
          {BOARD_COLUMNS.map((state) => {
            const column = tasks.data!.filter((t) => t.state === state);
            return (
              <section key={state} className={`column${dragOver === state ? ' over' : ''}`} data-column={state} aria-label={STATE_LABELS[state]}
                onDragOver={(e) => { if (e.dataTransfer.types.includes(DRAG_TYPE)) { e.preventDefault(); setDragOver(state); } }}
                onDragLeave={() => setDragOver((s) => (s === state ? null : s))}
                onDrop={drop(state)}>
                <h2 className="label">{STATE_LABELS[state]} <span className="count">{column.length}</span></h2>
                {column.map((task) => (
                  <TaskCard key={task.id} task={task} blockers={task.blocked_by.map((id) => byId.get(id) ?? id)}
                    agents={agents.data ?? []} assigneeName={agentName(task.assignee_agent_instance_id)} lastWakeup={latest.get(task.id)} lastRun={lastRuns.get(task.id)}
                    busy={action.busy}
                    onMove={(next) => void action.run(() => moveTask(task.id, next))}
                    onAssign={(agentId) => void action.run(() => assignTask(task.id, agentId))} />
                ))}
              </section>
            );
          })}
        </div>
      )}
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
  lastRun: Run | undefined;
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
      {props.lastRun && <RunLine run={props.lastRun} />}
      {props.lastWakeup && (
        <p className="why" data-testid="last-wakeup"><ApiSentence text={props.lastWakeup.explain} /></p>
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

/** A card's run: running now (a link to watch it, live), or how the last one ended and when. */
function RunLine(props: { run: Run }) {
  const { run } = props;
  const live = LIVE_RUN.has(run.status);
  return (
    <p className="run-line" data-testid="task-run" data-status={run.status}>
      <Link to={`/office/runs/${run.id}`} title={live ? 'Watch the run, live' : 'Open the last run'}>
        {live ? <Badge tone="info">{run.status === 'running' ? 'running' : 'starting'}</Badge> : <StatusBadge status={run.status} />}
      </Link>{' '}
      <span className="hint">{live ? <>since <Time at={run.started_at ?? run.created_at} /></> : <>last run <Time at={run.finished_at ?? run.created_at} /></>}</span>
    </p>
  );
}

/** A new task; `assignee` preselects one (the first task of an agent just added), `onCreated` hears of it. */
export function NewTaskDialog(props: { workspaceId: string; agents: Agent[]; assignee?: string; onClose: () => void; onCreated?: (task: Task) => void }) {
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [assignee, setAssignee] = useState(props.assignee ?? '');
  const [requiresApproval, setRequiresApproval] = useState(false);
  const action = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const created = await action.run(() => call(office.POST('/api/office/tasks', { body: validated(CreateTaskBody, {
      workspace_id: props.workspaceId, title, description, assignee_agent_instance_id: assignee || null, requires_approval: requiresApproval,
    }) })));
    if (!created) return;
    props.onCreated?.(created);
    props.onClose();
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
