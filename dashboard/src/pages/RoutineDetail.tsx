import { useState, type FormEvent } from 'react';
import { CATCH_UP_POLICY_SENTENCES, CONCURRENCY_POLICY_SENTENCES } from '../../../src/domain/routines.js';
import { FireRoutineBody } from '../../../src/domain/schemas.js';
import { ApiError, call, office } from '../api';
import { shortId } from '../format';
import { query, useApi } from '../hooks';
import { Link } from '../router';
import { fireOutcome, lastFiredOf, routineZone, triggerZone } from '../routineTimes';
import type { Agent, Routine, RoutineRun, Task, Trigger, VariableDecl } from '../types';
import { Badge, Empty, ErrorBox, Field, Loading, Modal, StatusBadge, ZonedTime } from '../ui';
import { useWorkspace } from '../workspace';
import { RoutineForm } from './RoutineForm';

const STATUSES = ['active', 'paused', 'archived'] as const;

/** Run now asks first when a required variable has no default. */
export function needsVariables(variables: VariableDecl[]): boolean {
  return variables.some((v) => v.required && (v.default === undefined || v.default === null));
}

export function RoutineDetailPage(props: { id: string }) {
  const routine = useApi<Routine>(`/api/office/routines/${props.id}`);
  const runs = useApi<RoutineRun[]>(`/api/office/routines/${props.id}/runs?limit=50`);
  const agents = useApi<Agent[]>(routine.data ? `/api/office/agents${query({ workspace_id: routine.data.workspace_id })}` : null);
  // The titles of the tasks its runs made: the list the board and task pages read, routine tasks included.
  const tasks = useApi<Task[]>(routine.data ? `/api/office/tasks${query({ workspace_id: routine.data.workspace_id, include_routine: 'true', limit: 1000 })}` : null);
  const { workspaces } = useWorkspace();
  const [asking, setAsking] = useState(false);
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [fired, setFired] = useState<RoutineRun | null>(null);

  if (routine.error && !routine.data) return <ErrorBox error={routine.error} />;
  if (!routine.data) return <Loading what="routine" />;
  const r = routine.data;
  const assignee = agents.data?.find((a) => a.id === r.assignee_agent_instance_id);
  const workspaceZone = workspaces?.find((w) => w.id === r.workspace_id)?.timezone;
  if (!workspaceZone) return <Loading what="workspace" />;
  const zone = routineZone(r, workspaceZone);
  const lastRun = runs.data?.[0];
  const taskTitle = (id: string) => tasks.data?.find((t) => t.id === id)?.title;

  const patch = async (body: Record<string, unknown>) => {
    setError(null);
    try {
      await call(office.PATCH('/api/office/routines/{id}', { params: { path: { id: r.id } }, body }));
      routine.reload();
    } catch (e) {
      setError(e as ApiError);
    }
  };
  const fire = async (variables: Record<string, unknown>) => {
    setError(null);
    try {
      const result = await call(office.POST('/api/office/routines/{id}/fire', { params: { path: { id: r.id } }, body: { variables } }));
      setFired(result.routine_run);
      setAsking(false);
      runs.reload();
      return null;
    } catch (e) {
      return e as ApiError;
    }
  };
  const runNow = async () => {
    if (needsVariables(r.variables)) setAsking(true);
    else {
      const failure = await fire({});
      if (failure) setError(failure);
    }
  };

  return (
    <section>
      <header className="page-head">
        <div>
          <p className="crumbs"><Link to="/office/routines">Routines</Link> /</p>
          <h1>{r.name} <StatusBadge status={r.status} /></h1>
        </div>
        <div className="actions">
          <button type="button" onClick={() => setEditing(true)} disabled={!agents.data}>Edit</button>
          <button type="button" className="primary" onClick={() => void runNow()} disabled={r.status === 'archived'}>Run now</button>
        </div>
      </header>
      <ErrorBox error={error} />
      {fired && (
        <div className="notice" role="status" data-testid="fired">
          <span>Fired: {fireOutcome(fired)}{fired.linked_task_id && <>: <Link to={`/office/tasks/${fired.linked_task_id}`}>{taskTitle(fired.linked_task_id) ?? 'open it'}</Link></>}.</span>
          <button type="button" className="link" onClick={() => setFired(null)} aria-label="Dismiss">✕</button>
        </div>
      )}

      <div className="cards">
        <div className="card">
          <h2 className="label">Status</h2>
          <div className="radios" role="radiogroup" aria-label="Routine status">
            {STATUSES.map((status) => (
              <label key={status} className="check">
                <input type="radio" name="routine-status" value={status} checked={r.status === status} onChange={() => void patch({ status })} /> {status}
              </label>
            ))}
          </div>
          {r.paused_reason && <p className="hint">Paused: {r.paused_reason}</p>}
        </div>
        <div className="card">
          <h2 className="label">Last run</h2>
          <p data-testid="last-run">{lastRun ? <ZonedTime at={lastRun.started_at} zone={zone} /> : <span className="muted">never</span>}</p>
          {lastRun && <p className="hint">{lastRun.source === 'cron' ? 'on its schedule' : lastRun.source === 'manual' ? 'by hand (Run now)' : 'from its webhook'}: {fireOutcome(lastRun)}</p>}
        </div>
        <div className="card">
          <h2 className="label">Assignee</h2>
          <p className="big"><Link to={`/office/agents/${r.assignee_agent_instance_id}`}>{assignee?.name ?? r.assignee_agent_instance_id}</Link></p>
          <p className="hint">{assignee?.role}</p>
        </div>
        <div className="card policies">
          <h2 className="label">Policies</h2>
          <p><code>{r.concurrency_policy}</code></p>
          <p className="hint">{CONCURRENCY_POLICY_SENTENCES[r.concurrency_policy]}</p>
          <p><code>{r.catch_up_policy}</code>{r.catch_up_policy === 'enqueue_missed_with_cap' && <> (max {r.catch_up_max})</>}</p>
          <p className="hint">{CATCH_UP_POLICY_SENTENCES[r.catch_up_policy]}</p>
        </div>
      </div>

      {r.description && <p>{r.description}</p>}
      <h2>Task template</h2>
      {r.task_template ? (
        <div className="card"><strong>{r.task_template.title}</strong>{r.task_template.description && <pre className="prose">{r.task_template.description}</pre>}</div>
      ) : <p className="muted">Lightweight: each fire wakes the assignee without creating a task.</p>}

      {r.variables.length > 0 && (
        <>
          <h2>Variables</h2>
          <table className="list compact" aria-label="Variables">
            <thead><tr><th>Name</th><th>Type</th><th>Required</th><th>Default</th><th>Options</th></tr></thead>
            <tbody>
              {r.variables.map((v) => (
                <tr key={v.name}><td><code>{v.name}</code></td><td>{v.type}</td><td>{v.required ? 'yes' : 'no'}</td><td>{v.default === undefined || v.default === null ? '-' : String(v.default)}</td><td>{v.options?.join(', ') ?? '-'}</td></tr>
              ))}
            </tbody>
          </table>
        </>
      )}

      <h2>Triggers</h2>
      {r.triggers.length === 0 ? <Empty>No triggers: this routine fires only with Run now or the API.</Empty> : (
        r.triggers.map((trigger) => (
          <TriggerCard key={trigger.id} trigger={trigger} zone={triggerZone(trigger, workspaceZone)} lastFired={lastFiredOf(trigger, runs.data)}
            onChanged={routine.reload} onError={setError} />
        ))
      )}

      <h2>Run history</h2>
      {runs.data === undefined ? <Loading what="runs" /> : runs.data.length === 0 ? <Empty>Not fired yet.</Empty> : (
        <table className="list" aria-label="Routine runs">
          <thead><tr><th>Started</th><th>Source</th><th>Status</th><th>Outcome</th><th>Trigger payload</th><th>Linked task</th><th>Wakeup</th></tr></thead>
          <tbody>
            {runs.data.map((run) => (
              <tr key={run.id} data-routine-run-id={run.id}>
                <td><ZonedTime at={run.started_at} zone={zone} /></td>
                <td>{run.source}</td>
                <td><StatusBadge status={run.status} />{run.skip_reason && <span className="hint"> {run.skip_reason}</span>}{run.error && <span className="hint bad"> {run.error}</span>}</td>
                <td>{run.outcome ? <StatusBadge status={run.outcome} /> : <span className="muted">-</span>}</td>
                <td><code className="payload" title={JSON.stringify(run.trigger_payload, null, 2)}>{JSON.stringify(run.trigger_payload)}</code></td>
                <td>{run.linked_task_id ? <Link to={`/office/tasks/${run.linked_task_id}`} title={run.linked_task_id}>{taskTitle(run.linked_task_id) ?? shortId(run.linked_task_id)}</Link> : <span className="muted">-</span>}</td>
                <td>{run.linked_wakeup_id ? <Link to={`/office/wakeups?id=${run.linked_wakeup_id}`}>view</Link> : <span className="muted">-</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      {asking && <RunNowModal variables={r.variables} onClose={() => setAsking(false)} onFire={fire} />}
      {editing && agents.data && (
        <RoutineForm mode="edit" workspaceId={r.workspace_id} workspaceZone={workspaceZone} agents={agents.data} routine={r} onClose={() => setEditing(false)}
          onSaved={() => { setEditing(false); routine.reload(); }} />
      )}
    </section>
  );
}

function TriggerCard(props: { trigger: Trigger; zone: string; lastFired: string | null; onChanged: () => void; onError: (error: ApiError | null) => void }) {
  const t = props.trigger;
  const preview = useApi<{ next_fire_times: string[]; timezone: string | null }>(
    t.kind === 'schedule' ? `/api/office/routine-triggers/${t.id}/preview?count=5` : null);
  const setEnabled = async (enabled: boolean) => {
    props.onError(null);
    try {
      await call(office.PATCH('/api/office/routine-triggers/{id}', { params: { path: { id: t.id } }, body: { enabled } }));
      props.onChanged();
    } catch (e) {
      props.onError(e as ApiError);
    }
  };
  return (
    <div className="card trigger" data-trigger-id={t.id}>
      <div className="row">
        <Badge tone="info">{t.kind}</Badge>
        {t.kind === 'schedule' && <code>{t.cron_expression}</code>}
        {t.kind === 'schedule' && <span className="hint" data-testid="trigger-zone">in {props.zone}</span>}
        {t.kind === 'webhook' && <><code>POST {t.url}</code><span className="hint">signing: {t.signing_mode}</span></>}
        <label className="check push">
          <input type="checkbox" checked={t.enabled} onChange={(e) => void setEnabled(e.target.checked)} /> enabled
        </label>
      </div>
      <div className="row hint">
        <span data-testid="trigger-last-fired">{FIRED_BY[t.kind]}: {props.lastFired ? <ZonedTime at={props.lastFired} zone={props.zone} /> : 'never'}</span>
        {t.kind === 'schedule' && <span data-testid="trigger-next">Next: {t.enabled && t.next_run_at ? <ZonedTime at={t.next_run_at} zone={props.zone} /> : 'not scheduled'}</span>}
      </div>
      {preview.data && (
        <div className="preview" aria-label="Next fire times">
          Next fire times: {preview.data.next_fire_times.map((time) => <span key={time} className="pill"><ZonedTime at={time} zone={props.zone} /></span>)}
        </div>
      )}
    </div>
  );
}

/** What a trigger's last fire was, by its kind: a schedule's tick is not a Run now. */
const FIRED_BY: Record<Trigger['kind'], string> = { schedule: 'Fired on its schedule', webhook: 'Last delivery', manual: 'Last Run now' };

/** Asks for the routine's variables before a manual fire; the API checks them again. */
function RunNowModal(props: { variables: VariableDecl[]; onClose: () => void; onFire: (variables: Record<string, unknown>) => Promise<ApiError | null> }) {
  const [values, setValues] = useState<Record<string, string | boolean>>(() =>
    Object.fromEntries(props.variables.map((v) => [v.name, v.type === 'boolean' ? v.default === true : v.default === undefined || v.default === null ? '' : String(v.default)])));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [serverError, setServerError] = useState<ApiError | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const missing: Record<string, string> = {};
    for (const v of props.variables) if (v.required && values[v.name] === '') missing[v.name] = `${v.name} is required`;
    setErrors(missing);
    if (Object.keys(missing).length) return;
    const variables = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== ''));
    const parsed = FireRoutineBody.safeParse({ variables });
    if (!parsed.success) {
      setServerError(new ApiError(400, 'validation_error', parsed.error.issues.map((i) => i.message).join('; ')));
      return;
    }
    const failure = await props.onFire(variables);
    setServerError(failure);
  };

  return (
    <Modal title="Run now" onClose={props.onClose}>
      <form onSubmit={submit} noValidate>
        <p className="hint">This routine needs values for its variables.</p>
        {props.variables.map((v) => (
          <Field key={v.name} label={`${v.name}${v.required ? ' *' : ''}`} error={errors[v.name]} hint={v.description}>
            {v.type === 'boolean' ? (
              <input type="checkbox" name={v.name} checked={values[v.name] === true} onChange={(e) => setValues({ ...values, [v.name]: e.target.checked })} />
            ) : v.type === 'select' ? (
              <select name={v.name} value={String(values[v.name] ?? '')} onChange={(e) => setValues({ ...values, [v.name]: e.target.value })}>
                <option value="">Choose…</option>
                {(v.options ?? []).map((o) => <option key={o} value={o}>{o}</option>)}
              </select>
            ) : (
              <input name={v.name} type={v.type === 'number' ? 'number' : 'text'} value={String(values[v.name] ?? '')} onChange={(e) => setValues({ ...values, [v.name]: e.target.value })} />
            )}
          </Field>
        ))}
        <ErrorBox error={serverError} />
        <footer>
          <button type="button" onClick={props.onClose}>Cancel</button>
          <button type="submit" className="primary">Fire routine</button>
        </footer>
      </form>
    </Modal>
  );
}
