import { useEffect, useState, type FormEvent } from 'react';
import { PatchWorkspaceBody } from '../../../src/domain/schemas.js';
import { api, ApiError } from '../api';
import type { Workspace } from '../types';
import { ErrorBox, Field, Loading } from '../ui';
import { useWorkspace } from '../workspace';
import { BudgetsSection } from './Budgets';

/** Workspace settings; the advanced section holds the recovery lookback window. */
export function SettingsPage() {
  const { workspace, reload } = useWorkspace();
  const [hours, setHours] = useState('');
  const [saved, setSaved] = useState<Workspace | null>(null);
  const [error, setError] = useState<ApiError | string | null>(null);

  useEffect(() => {
    if (workspace) setHours(String(workspace.recovery_lookback_hours));
  }, [workspace?.id, workspace?.recovery_lookback_hours]);

  if (!workspace) return <Loading what="workspace" />;

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
      const updated = await api<Workspace>('PATCH', `/api/office/workspaces/${workspace.id}`, parsed.data);
      setHours(String(updated.recovery_lookback_hours));
      setSaved(updated);
      reload();
    } catch (e) {
      setError(e as ApiError);
    }
  };

  return (
    <section>
      <header className="page-head"><h1>Workspace settings</h1></header>
      <dl className="card">
        <dt>Name</dt><dd>{workspace.name}</dd>
        <dt>Id</dt><dd><code>{workspace.id}</code></dd>
        <dt>Time zone</dt><dd>{workspace.timezone}</dd>
      </dl>
      <BudgetsSection workspaceId={workspace.id} />
      <h2>Advanced</h2>
      <form className="card narrow" onSubmit={submit} noValidate aria-label="Recovery settings">
        <Field label="Recovery lookback window (hours)" hint="How far back the recovery sweep looks for work that was left behind. 1 to 720; other values are clamped.">
          <input name="recovery_lookback_hours" type="number" min={1} max={720} step={1} value={hours} onChange={(e) => setHours(e.target.value)} />
        </Field>
        <ErrorBox error={error} />
        {saved && <p className="ok" role="status">Saved: {saved.recovery_lookback_hours} hours.</p>}
        <footer><button type="submit" className="primary">Save</button></footer>
      </form>
    </section>
  );
}
