/**
 * Starting from nothing: "Create a workspace", then "Add an agent" with a command to run. A new
 * user gets from an empty install to an agent that can be woken without curl.
 */
import { useMemo, useState, type FormEvent } from 'react';
import { CreateAgentBody, CreateWorkspaceBody } from '../../../src/domain/schemas.js';
import { AGENT_ROLES } from '../../../src/domain/types.js';
import { api } from '../api';
import { query, useAction, useApi } from '../hooks';
import type { Agent, Workspace } from '../types';
import { ErrorBox, Field, fieldError } from '../ui';
import { validated } from '../validate';
import { useWorkspace } from '../workspace';

function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

function timeZones(): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return zones.includes('UTC') ? zones : ['UTC', ...zones];
}

export function CreateWorkspace() {
  const { select } = useWorkspace();
  const zones = useMemo(timeZones, []);
  const [name, setName] = useState('');
  const [timezone, setTimezone] = useState(browserTimeZone);
  const action = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const created = await action.run(() => api<Workspace>('POST', '/api/office/workspaces', validated(CreateWorkspaceBody, { name, timezone })));
    if (created) select(created.id);
  };
  const nameError = fieldError(action.error, 'name');
  return (
    <section className="empty-state welcome">
      <h1>Create a workspace</h1>
      <p className="hint">A workspace holds your agents, their tasks and routines. Cron schedules run in its time zone unless a trigger says otherwise.</p>
      <form className="card narrow" onSubmit={submit} noValidate aria-label="Create a workspace">
        <Field label="Name" error={nameError}>
          <input name="workspace_name" value={name} onChange={(e) => setName(e.target.value)} autoFocus placeholder="Acme" />
        </Field>
        <Field label="Time zone" error={fieldError(action.error, 'timezone')}>
          <select name="timezone" value={timezone} onChange={(e) => setTimezone(e.target.value)}>
            {(zones.includes(timezone) ? zones : [timezone, ...zones]).map((zone) => <option key={zone} value={zone}>{zone}</option>)}
          </select>
        </Field>
        <ErrorBox error={nameError ? null : action.error} />
        <footer><button type="submit" className="primary" disabled={action.busy}>Create workspace</button></footer>
      </form>
      <p className="hint">Or run <code>npm run demo</code> to start with a demo workspace.</p>
    </section>
  );
}

/** Shown above a workspace's pages while it has no agent. */
export function AddFirstAgent(props: { workspace: Workspace }) {
  const agents = useApi<Agent[]>(`/api/office/agents${query({ workspace_id: props.workspace.id })}`);
  if (agents.data === undefined || agents.data.length > 0) return null;
  return <AddAgentForm workspace={props.workspace} />;
}

function AddAgentForm(props: { workspace: Workspace }) {
  const [name, setName] = useState('');
  const [role, setRole] = useState<Agent['role']>('worker');
  const [command, setCommand] = useState('');
  const [args, setArgs] = useState('');
  const action = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await action.run(() => api<Agent>('POST', '/api/office/agents', validated(CreateAgentBody, {
      workspace_id: props.workspace.id, name, role,
      executor: { kind: 'command', command, args: args.split('\n').map((a) => a.trim()).filter(Boolean) },
    })));
  };
  const nameError = fieldError(action.error, 'name');
  const commandError = fieldError(action.error, 'command');
  return (
    <section className="welcome" aria-label="Add an agent">
      <h2>Add an agent</h2>
      <p className="hint">
        <strong>{props.workspace.name}</strong> has no agents yet. An agent is a command the scheduler runs when it wakes the agent:
        the prompt arrives on stdin, and <code>OFFICE_API_URL</code> with a run token in the environment.
      </p>
      <form className="card narrow" onSubmit={submit} noValidate aria-label="Add an agent">
        <Field label="Name" error={nameError}>
          <input name="agent_name" value={name} onChange={(e) => setName(e.target.value)} placeholder="Researcher" />
        </Field>
        <Field label="Role" hint="A coordinator or CEO also gets a heartbeat routine.">
          <select name="role" value={role} onChange={(e) => setRole(e.target.value as Agent['role'])}>
            {AGENT_ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
          </select>
        </Field>
        <Field label="Command" error={commandError} hint="Run without a shell, e.g. /usr/local/bin/claude or node.">
          <input name="command" value={command} onChange={(e) => setCommand(e.target.value)} placeholder="node" />
        </Field>
        <Field label="Arguments (one per line)">
          <textarea name="args" rows={3} value={args} onChange={(e) => setArgs(e.target.value)} placeholder="agent.mjs" />
        </Field>
        <ErrorBox error={nameError || commandError ? null : action.error} />
        <footer><button type="submit" className="primary" disabled={action.busy}>Add agent</button></footer>
      </form>
    </section>
  );
}
