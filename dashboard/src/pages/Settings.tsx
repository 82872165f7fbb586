import { useEffect, useState, type FormEvent } from 'react';
import { PatchWorkspaceBody } from '../../../src/domain/schemas.js';
import { ApiError, call, office } from '../api';
import { query, useApi } from '../hooks';
import { navigate } from '../router';
import type { Agent, Workspace } from '../types';
import { ConfirmDialog, ErrorBox, Field, Loading, ShortId } from '../ui';
import { useWorkspace } from '../workspace';
import { BudgetsSection } from './Budgets';
import { WorkspaceForm } from './Welcome';

/** Workspace settings: its name and time zone, its budgets, the recovery lookback window, and deleting it. */
export function SettingsPage() {
  const { workspace, reload } = useWorkspace();
  const [renamed, setRenamed] = useState<Workspace | null>(null);
  if (!workspace) return <Loading what="workspace" />;
  return (
    <section>
      <header className="page-head"><h1>Workspace settings</h1></header>
      <p className="hint">Id <ShortId id={workspace.id} /></p>
      <WorkspaceForm key={workspace.id} workspace={workspace} onSaved={(saved) => { setRenamed(saved); reload(); }} />
      {renamed?.id === workspace.id && <p className="ok" role="status">Updated: {renamed.name}, {renamed.timezone}.</p>}
      <BudgetsSection workspaceId={workspace.id} />
      <RecoverySettings workspace={workspace} onSaved={reload} />
      <DeleteWorkspace workspace={workspace} />
    </section>
  );
}

/** The advanced setting: how far back the recovery sweep looks. */
function RecoverySettings(props: { workspace: Workspace; onSaved: () => void }) {
  const { workspace } = props;
  const [hours, setHours] = useState('');
  const [saved, setSaved] = useState<Workspace | null>(null);
  const [error, setError] = useState<ApiError | string | null>(null);

  useEffect(() => {
    setHours(String(workspace.recovery_lookback_hours));
  }, [workspace.id, workspace.recovery_lookback_hours]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setSaved(null);
    // The API's own schema clamps to 1..720, so the form shows what will be stored.
    const parsed = PatchWorkspaceBody.safeParse({ recovery_lookback_hours: hours.trim() === '' ? NaN : Number(hours) });
    if (!parsed.success) {
      setError('Enter a number of hours (1 to 720).');
      return;
    }
    try {
      const updated = await call(office.PATCH('/api/office/workspaces/{id}', { params: { path: { id: workspace.id } }, body: parsed.data }));
      setHours(String(updated.recovery_lookback_hours));
      setSaved(updated);
      props.onSaved();
    } catch (e) {
      setError(e as ApiError);
    }
  };

  return (
    <>
      <h2>Advanced</h2>
      <form className="card narrow" onSubmit={submit} noValidate aria-label="Recovery settings">
        <Field label="Recovery lookback window (hours)" hint="How far back the recovery sweep looks for work that was left behind. 1 to 720; other values are clamped.">
          <input name="recovery_lookback_hours" type="number" min={1} max={720} step={1} value={hours} onChange={(e) => setHours(e.target.value)} />
        </Field>
        <ErrorBox error={error} />
        {saved && <p className="ok" role="status">Saved: {saved.recovery_lookback_hours} hours.</p>}
        <footer><button type="submit" className="primary">Save</button></footer>
      </form>
    </>
  );
}

/**
 * Deleting the workspace: only once it has no agent (the API refuses otherwise, with a 409 that
 * names them), so the button says so first rather than letting the request fail.
 */
function DeleteWorkspace(props: { workspace: Workspace }) {
  const { reload } = useWorkspace();
  const agents = useApi<Agent[]>(`/api/office/agents${query({ workspace_id: props.workspace.id })}`);
  const [asking, setAsking] = useState(false);
  const count = agents.data?.length;
  return (
    <>
      <h2>Delete this workspace</h2>
      <div className="card narrow danger-zone">
        <p className="hint">
          {count === undefined ? 'Checking its agents…' : count > 0
            ? `It still has ${count === 1 ? 'an agent' : `${count} agents`}: delete ${count === 1 ? 'it' : 'them'} on the Agents page first.`
            : 'It leaves the workspace menu; its tasks and history stay in the database.'}
        </p>
        <footer><button type="button" className="danger" disabled={count !== 0} onClick={() => setAsking(true)}>Delete workspace</button></footer>
      </div>
      {asking && (
        <ConfirmDialog title={`Delete ${props.workspace.name}?`} confirm="Delete workspace" onClose={() => setAsking(false)}
          onConfirm={() => call(office.DELETE('/api/office/workspaces/{id}', { params: { path: { id: props.workspace.id } } }))}
          onDone={() => { setAsking(false); reload(); navigate('/office/tasks'); }}>
          <p>The workspace leaves the menu, and the dashboard opens another one. This cannot be undone from the dashboard.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
