import { useState } from 'react';
import { ApiError, call, office } from '../api';
import { query, useApi } from '../hooks';
import { Link } from '../router';
import { nextFire, routineZone } from '../routineTimes';
import type { Agent, Routine, Trigger } from '../types';
import { useWorkspace } from '../workspace';
import { Badge, Empty, ErrorBox, Loading, StatusBadge, ZonedTime } from '../ui';
import { RoutineForm } from './RoutineForm';

export function triggerSummary(triggers: Trigger[]): { kinds: string; cron: string } {
  if (triggers.length === 0) return { kinds: 'none', cron: '-' };
  const kinds = [...new Set(triggers.map((t) => t.kind))].join(', ');
  const cron = triggers.filter((t) => t.kind === 'schedule').map((t) => t.cron_expression).join('; ') || '-';
  return { kinds, cron };
}

export function RoutinesPage() {
  const { workspace } = useWorkspace();
  const wsQuery = workspace ? query({ workspace_id: workspace.id }) : null;
  const routines = useApi<Routine[]>(wsQuery !== null ? `/api/office/routines${wsQuery}` : null);
  const agents = useApi<Agent[]>(wsQuery !== null ? `/api/office/agents${wsQuery}` : null);
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [created, setCreated] = useState<Routine | null>(null);
  const agentName = (id: string) => agents.data?.find((a) => a.id === id)?.name ?? id;

  const toggle = async (routine: Routine) => {
    setError(null);
    try {
      await call(office.PATCH('/api/office/routines/{id}', { params: { path: { id: routine.id } }, body: { status: routine.status === 'active' ? 'paused' : 'active' } }));
      routines.reload();
    } catch (e) {
      setError(e as ApiError);
    }
  };

  if (!workspace) return <Loading what="workspace" />;
  const visible = (routines.data ?? []).filter((r) => r.status !== 'archived');
  return (
    <section>
      <header className="page-head">
        <h1>Routines</h1>
        <button type="button" className="primary" onClick={() => setCreating(true)} disabled={!agents.data}>Create Routine</button>
      </header>
      <ErrorBox error={error ?? routines.error} />
      {created && (
        <div className="notice" role="status">
          Created <Link to={`/office/routines/${created.id}`}>{created.name}</Link>.
          {created.triggers.filter((t) => t.secret).map((t) => (
            <span key={t.id}> Webhook <code>POST {t.url}</code>, secret <code>{t.secret}</code> (shown once: copy it now).</span>
          ))}
          <button type="button" className="link" onClick={() => setCreated(null)} aria-label="Dismiss">✕</button>
        </div>
      )}
      {routines.data === undefined ? <Loading what="routines" /> : visible.length === 0 ? (
        <Empty>No routines yet. Create one to wake an agent on a schedule, from a webhook, or by hand.</Empty>
      ) : (
        <table className="list" aria-label="Routines">
          <thead>
            <tr><th>Enabled</th><th>Name</th><th>Trigger</th><th>Cron</th><th>Next fire</th><th>Status</th><th>Last run</th><th>Assignee</th></tr>
          </thead>
          <tbody>
            {visible.map((routine) => {
              const summary = triggerSummary(routine.triggers);
              const next = nextFire(routine.triggers, workspace.timezone);
              return (
                <tr key={routine.id} data-routine-id={routine.id}>
                  <td>
                    <label className="switch" title={routine.status === 'active' ? 'Pause this routine' : 'Resume this routine'}>
                      <input type="checkbox" role="switch" aria-label={`Enabled: ${routine.name}`} checked={routine.status === 'active'} onChange={() => void toggle(routine)} />
                      <span />
                    </label>
                  </td>
                  <td><Link to={`/office/routines/${routine.id}`}>{routine.name}</Link>{routine.task_template === null && <Badge tone="muted">lightweight</Badge>}</td>
                  <td>{summary.kinds}</td>
                  <td><code>{summary.cron}</code></td>
                  <td data-testid="next-fire">{routine.status !== 'active' ? <span className="muted">paused</span> : next ? <ZonedTime at={next.at} zone={next.zone} /> : <span className="muted">none scheduled</span>}</td>
                  <td><StatusBadge status={routine.status} />{routine.paused_reason && <span className="hint"> {routine.paused_reason}</span>}</td>
                  <td>{routine.last_run ? <><StatusBadge status={routine.last_run.status} /> <ZonedTime at={routine.last_run.started_at} zone={routineZone(routine, workspace.timezone)} /></> : <span className="muted">never</span>}</td>
                  <td><Link to={`/office/agents/${routine.assignee_agent_instance_id}`}>{agentName(routine.assignee_agent_instance_id)}</Link></td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {creating && agents.data && (
        <RoutineForm
          mode="create"
          workspaceId={workspace.id}
          workspaceZone={workspace.timezone}
          agents={agents.data}
          onClose={() => setCreating(false)}
          onSaved={(routine) => {
            setCreating(false);
            setCreated(routine);
            routines.reload();
          }}
        />
      )}
    </section>
  );
}
