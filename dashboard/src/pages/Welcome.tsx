/**
 * Starting from nothing: "Create a workspace", then "Add an agent" (a program to run, no JSON),
 * then a first task for it, whose run the board links to while it works. The workspace form also
 * makes a second workspace and edits one (Settings).
 */
import { useMemo, useState, type FormEvent } from 'react';
import { CreateWorkspaceBody, PatchWorkspaceBody } from '../../../src/domain/schemas.js';
import { call, office } from '../api';
import { browserZone } from '../format';
import { query, useAction, useApi } from '../hooks';
import { Link, navigate } from '../router';
import type { Agent, Run, Task, Workspace } from '../types';
import { ErrorBox, Field, fieldError, Modal } from '../ui';
import { validated } from '../validate';
import { useWorkspace } from '../workspace';
import { AgentForm } from './AgentForm';
import { NewTaskDialog } from './Tasks';

function timeZones(): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return zones.includes('UTC') ? zones : ['UTC', ...zones];
}

/** A workspace's name and time zone: a new workspace (`workspace` absent), or a change to one. */
export function WorkspaceForm(props: { workspace?: Workspace; onSaved: (workspace: Workspace) => void; onCancel?: () => void; autoFocus?: boolean }) {
  const zones = useMemo(timeZones, []);
  const [name, setName] = useState(props.workspace?.name ?? '');
  const [timezone, setTimezone] = useState(props.workspace?.timezone ?? browserZone);
  const action = useAction();
  const editing = props.workspace !== undefined;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const saved = await action.run(() => (editing
      ? call(office.PATCH('/api/office/workspaces/{id}', { params: { path: { id: props.workspace!.id } }, body: validated(PatchWorkspaceBody, { name, timezone }) }))
      : call(office.POST('/api/office/workspaces', { body: validated(CreateWorkspaceBody, { name, timezone }) }))));
    if (saved) props.onSaved(saved);
  };
  const nameError = fieldError(action.error, 'name');
  const zoneError = fieldError(action.error, 'timezone');
  return (
    <form className="card narrow" onSubmit={submit} noValidate aria-label={editing ? 'Workspace' : 'Create a workspace'}>
      <Field label="Name" error={nameError}>
        <input name="workspace_name" value={name} onChange={(e) => setName(e.target.value)} autoFocus={props.autoFocus} placeholder="Acme" />
      </Field>
      <Field label="Time zone" error={zoneError} hint="Schedules run in this zone unless a trigger names another; the dashboard shows routine times in it.">
        <select name="timezone" value={timezone} onChange={(e) => setTimezone(e.target.value)}>
          {(zones.includes(timezone) ? zones : [timezone, ...zones]).map((zone) => <option key={zone} value={zone}>{zone}</option>)}
        </select>
      </Field>
      <ErrorBox error={nameError || zoneError ? null : action.error} />
      <footer>
        {props.onCancel && <button type="button" onClick={props.onCancel}>Cancel</button>}
        <button type="submit" className="primary" disabled={action.busy}>{editing ? 'Update workspace' : 'Create workspace'}</button>
      </footer>
    </form>
  );
}

/** The first screen of a fresh install. */
export function CreateWorkspace() {
  const { select } = useWorkspace();
  return (
    <section className="empty-state welcome">
      <h1>Create a workspace</h1>
      <p className="hint">A workspace holds your agents, their tasks and routines. Cron schedules run in its time zone unless a trigger says otherwise.</p>
      <WorkspaceForm autoFocus onSaved={(created) => { select(created.id); navigate('/office/tasks'); }} />
      <p className="hint">Or run <code>npm run demo</code> to start with a demo workspace.</p>
    </section>
  );
}

/** A second (or any further) workspace, from the header's workspace menu. */
export function NewWorkspaceDialog(props: { onClose: () => void }) {
  const { select } = useWorkspace();
  return (
    <Modal title="New workspace" onClose={props.onClose}>
      <WorkspaceForm autoFocus onCancel={props.onClose} onSaved={(created) => { select(created.id); props.onClose(); navigate('/office/tasks'); }} />
    </Modal>
  );
}

/**
 * Shown above a workspace's pages while it has no agent, and then, once one is added, the next
 * steps: a first task for it, and its run, live.
 */
export function AddFirstAgent(props: { workspace: Workspace }) {
  const agents = useApi<Agent[]>(`/api/office/agents${query({ workspace_id: props.workspace.id })}`);
  const [added, setAdded] = useState<Agent | null>(null);
  if (added) return <NextSteps workspace={props.workspace} agent={added} onDone={() => setAdded(null)} />;
  if (agents.data === undefined || agents.data.length > 0) return null;
  return (
    <section className="welcome" aria-label="Add an agent">
      <h2>Add an agent</h2>
      <p className="hint">
        <strong>{props.workspace.name}</strong> has no agents yet. An agent is a program the scheduler runs when it wakes the agent: Claude Code,
        Codex CLI, Gemini CLI, or any command. The prompt arrives on stdin, and <code>OFFICE_API_URL</code> with a run token in the environment.
      </p>
      <AgentForm workspace={props.workspace} onSaved={setAdded} />
    </section>
  );
}

/** After "Add agent": it is there, and what to do next, one step at a time. */
function NextSteps(props: { workspace: Workspace; agent: Agent; onDone: () => void }) {
  const [asking, setAsking] = useState(false);
  const [task, setTask] = useState<Task | null>(null);
  const runs = useApi<Run[]>(task ? `/api/office/runs${query({ task_id: task.id, limit: 1 })}` : null);
  const run = runs.data?.[0];
  return (
    <section className="welcome next-steps" role="status" aria-label="Next steps">
      {task === null ? (
        <>
          <h2>{props.agent.name} is ready</h2>
          <p>Next, give it a first task: it wakes as soon as the task is assigned to it, and the task's card shows its run.</p>
          <div className="actions">
            <button type="button" className="primary" onClick={() => setAsking(true)}>Give {props.agent.name} a first task</button>
            <button type="button" className="link" onClick={props.onDone}>Not now</button>
          </div>
        </>
      ) : (
        <>
          <h2>"{task.title}" is on the board</h2>
          <p>
            {props.agent.name} wakes for it now.{' '}
            {run ? <><Link to={`/office/runs/${run.id}`}>Watch the run</Link>: what the agent prints appears there as it works.</> : 'Its run appears here in a moment.'}
          </p>
          <div className="actions"><button type="button" className="link" onClick={props.onDone}>Done</button></div>
        </>
      )}
      {asking && (
        <NewTaskDialog workspaceId={props.workspace.id} agents={[props.agent]} assignee={props.agent.id} onClose={() => setAsking(false)}
          onCreated={(created) => { setTask(created); navigate('/office/tasks'); }} />
      )}
    </section>
  );
}
