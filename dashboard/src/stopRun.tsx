/**
 * Stop on a running run: POST /api/office/runs/:id/cancel. The session is stopped (a command's
 * process group gets SIGTERM, then SIGKILL), the run ends `cancelled` and is not retried, so the
 * button asks first, with an optional reason that the run's wakeup keeps.
 */
import { useState, type FormEvent } from 'react';
import { call, office } from './api';
import { useAction } from './hooks';
import type { Run } from './types';
import { ErrorBox, Modal } from './ui';
import './stopRun.css';

export function StopRunButton(props: { run: Pick<Run, 'id' | 'status'>; compact?: boolean }) {
  const [asking, setAsking] = useState(false);
  if (props.run.status !== 'running') return null;
  return (
    <>
      <button type="button" className={props.compact ? 'link danger' : 'danger'} onClick={() => setAsking(true)} title="Stop this run's session">Stop</button>
      {asking && <StopRunDialog runId={props.run.id} onClose={() => setAsking(false)} />}
    </>
  );
}

function StopRunDialog(props: { runId: string; onClose: () => void }) {
  const [reason, setReason] = useState('');
  const action = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const body = reason.trim() ? { reason: reason.trim() } : {};
    const stopped = await action.run(() => call(office.POST('/api/office/runs/{id}/cancel', { params: { path: { id: props.runId } }, body })));
    if (stopped !== undefined) props.onClose();
  };
  return (
    <Modal title="Stop run" onClose={props.onClose}>
      <form onSubmit={submit}>
        <p>The agent's session is stopped now. The run ends <strong>cancelled</strong> and is not retried.</p>
        <label className="field">
          <span>Reason (optional)</span>
          <input name="reason" value={reason} onChange={(e) => setReason(e.target.value)} placeholder="e.g. wrong task" autoFocus />
        </label>
        <ErrorBox error={action.error} />
        <footer><button type="submit" className="primary danger" disabled={action.busy}>Stop run</button></footer>
      </form>
    </Modal>
  );
}
