import { useState, type FormEvent } from 'react';
import { call, office } from '../api';
import { query, useAction, useApi } from '../hooks';
import { Link } from '../router';
import type { Agent, Comment, Run, Task, Wakeup } from '../types';
import { Badge, Empty, ErrorBox, ApiSentence, Loading, ShortId, StatusBadge, Time } from '../ui';
import { shortId, wakeupBadges } from '../format';
import { assignTask, BOARD_COLUMNS, moveTask, STATE_LABELS } from './taskActions';

/** One task: where it stands, who works on it, its comments, and the wakeups and runs it caused. */
export function TaskPage(props: { id: string }) {
  const task = useApi<Task>(`/api/office/tasks/${props.id}`);
  const ws = task.data?.workspace_id;
  const agents = useApi<Agent[]>(ws ? `/api/office/agents${query({ workspace_id: ws })}` : null);
  // The blockers' titles and states: the same list the board reads, so it is usually in the cache already.
  const blockers = useApi<Task[]>(ws && task.data!.blocked_by.length > 0 ? `/api/office/tasks${query({ workspace_id: ws, include_routine: 'true', limit: 1000 })}` : null);
  const comments = useApi<Comment[]>(`/api/office/tasks/${props.id}/comments`);
  const wakeups = useApi<Wakeup[]>(`/api/office/wakeups${query({ task_id: props.id, limit: 50 })}`);
  const runs = useApi<Run[]>(`/api/office/runs${query({ task_id: props.id, limit: 50 })}`);
  const action = useAction();
  if (task.error && !task.data) return <ErrorBox error={task.error} />;
  if (!task.data) return <Loading what="task" />;
  const t = task.data;
  const agentName = (id: string) => agents.data?.find((a) => a.id === id)?.name ?? id;
  return (
    <section>
      <header className="page-head">
        <div>
          <p className="crumbs"><Link to="/office/tasks">Tasks</Link> /</p>
          <h1>{t.title} <StatusBadge status={t.state} />{t.requires_approval && <Badge tone="info">needs approval</Badge>}</h1>
        </div>
        <div className="actions">
          <label>Assignee{' '}
            <select aria-label="Assignee" name="assignee" value={t.assignee_agent_instance_id ?? ''} disabled={action.busy}
              onChange={(e) => void action.run(() => assignTask(t.id, e.target.value || null))}>
              <option value="">Unassigned</option>
              {agents.data?.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
            </select>
          </label>
          <label>State{' '}
            <select aria-label="State" name="state" value={t.state} disabled={action.busy}
              onChange={(e) => void action.run(() => moveTask(t.id, e.target.value as Task['state']))}>
              {[...BOARD_COLUMNS, 'CANCELLED' as const, 'ARCHIVED' as const].map((s) => <option key={s} value={s}>{STATE_LABELS[s]}</option>)}
            </select>
          </label>
        </div>
      </header>
      <ErrorBox error={action.error} />
      <dl className="card">
        <dt>Id</dt><dd><ShortId id={t.id} /></dd>
        <dt>Assignee</dt><dd>{t.assignee_agent_instance_id ? <Link to={`/office/agents/${t.assignee_agent_instance_id}`}>{agentName(t.assignee_agent_instance_id)}</Link> : '-'}</dd>
        <dt>Blocked by</dt><dd data-testid="blocked-by">{t.blocked_by.length === 0 ? '-' : t.blocked_by.map((id) => {
          const blocker = blockers.data?.find((b) => b.id === id);
          return <Link key={id} to={`/office/tasks/${id}`} className="pill">{blocker ? `${blocker.title} (${STATE_LABELS[blocker.state]})` : id}</Link>;
        })}</dd>
        <dt>Origin</dt><dd>{t.origin}{t.origin === 'routine' && t.origin_id ? <> (<Link to={`/office/routines/${t.origin_id}`}>routine</Link>)</> : null}</dd>
        <dt>Created</dt><dd><Time at={t.created_at} /></dd>
      </dl>
      {t.description && <pre className="prose">{t.description}</pre>}

      <h2>Comments</h2>
      {comments.data === undefined ? <Loading /> : comments.data.length === 0 ? <Empty>No comments yet.</Empty> : (
        <ul className="plain comments" aria-label="Comments">
          {comments.data.map((c) => (
            <li key={c.id}>
              <strong>{c.author_type === 'agent' ? agentName(c.author_id) : c.author_id}</strong> <Time at={c.created_at} />
              <p className="prose">{c.body}</p>
            </li>
          ))}
        </ul>
      )}
      <CommentForm taskId={t.id} />

      <div className="two-col">
        <div>
          <h2>Wakeups</h2>
          {wakeups.data === undefined ? <Loading /> : wakeups.data.length === 0 ? <Empty>This task has woken no one yet.</Empty> : (
            <ul className="plain" aria-label="Task wakeups">
              {wakeups.data.map((w) => (
                <li key={w.id} data-wakeup-id={w.id}>
                  {wakeupBadges(w).map((b) => <Badge key={b.label} tone={b.tone}>{b.label}</Badge>)} {agentName(w.agent_id)} · {w.source} <Time at={w.requested_at} />
                  <div className="explain"><ApiSentence text={w.explain} /></div>
                </li>
              ))}
            </ul>
          )}
        </div>
        <div>
          <h2>Runs</h2>
          {runs.data === undefined ? <Loading /> : runs.data.length === 0 ? <Empty>No runs on this task yet.</Empty> : (
            <ul className="plain" aria-label="Task runs">
              {runs.data.map((run) => <li key={run.id}><Link to={`/office/runs/${run.id}`} title={run.id}>{shortId(run.id)}</Link> <StatusBadge status={run.status} /> <Time at={run.started_at ?? run.created_at} /></li>)}
            </ul>
          )}
        </div>
      </div>
    </section>
  );
}

/** A person's comment: the server signs it with the token they act as ("admin", or a named token's id). */
function CommentForm(props: { taskId: string }) {
  const [body, setBody] = useState('');
  const action = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const created = await action.run(() => call(office.POST('/api/office/tasks/{id}/comments', { params: { path: { id: props.taskId } }, body: { body } })));
    if (created) setBody('');
  };
  return (
    <form className="card comment-form" onSubmit={submit} aria-label="Add a comment">
      <textarea name="comment" rows={3} value={body} onChange={(e) => setBody(e.target.value)} placeholder="Comment; the assignee is woken to read it." aria-label="Comment" />
      <ErrorBox error={action.error} />
      <footer><button type="submit" className="primary" disabled={action.busy || body.trim() === ''}>Comment</button></footer>
    </form>
  );
}
