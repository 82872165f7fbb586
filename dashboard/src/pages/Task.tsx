import { query, useApi } from '../hooks';
import { Link } from '../router';
import type { Run, Task } from '../types';
import { Empty, ErrorBox, Loading, StatusBadge, Time } from '../ui';

/** The task a routine run created, with the runs that worked on it. */
export function TaskPage(props: { id: string }) {
  const task = useApi<Task>(`/api/office/tasks/${props.id}`);
  const runs = useApi<Run[]>(`/api/office/runs${query({ task_id: props.id, limit: 50 })}`);
  if (task.error && !task.data) return <ErrorBox error={task.error} />;
  if (!task.data) return <Loading what="task" />;
  const t = task.data;
  return (
    <section>
      <header className="page-head">
        <div>
          <p className="crumbs">Task /</p>
          <h1>{t.title} <StatusBadge status={t.state} /></h1>
        </div>
      </header>
      <dl className="card">
        <dt>Id</dt><dd><code>{t.id}</code></dd>
        <dt>Assignee</dt><dd>{t.assignee_agent_instance_id ? <Link to={`/office/agents/${t.assignee_agent_instance_id}`}>{t.assignee_agent_instance_id}</Link> : '-'}</dd>
        <dt>Origin</dt><dd>{t.origin}{t.origin === 'routine' && t.origin_id ? <> (<Link to={`/office/routines/${t.origin_id}`}>routine</Link>)</> : null}</dd>
        <dt>Created</dt><dd><Time at={t.created_at} /></dd>
      </dl>
      {t.description && <pre className="prose">{t.description}</pre>}
      <h2>Runs</h2>
      {runs.data === undefined ? <Loading /> : runs.data.length === 0 ? <Empty>No runs on this task yet.</Empty> : (
        <ul className="plain">
          {runs.data.map((run) => <li key={run.id}><Link to={`/office/runs/${run.id}`}>{run.id}</Link> <StatusBadge status={run.status} /> <Time at={run.started_at ?? run.created_at} /></li>)}
        </ul>
      )}
    </section>
  );
}
