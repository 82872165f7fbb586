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

/** The programs the scheduler knows by name, and the plain command. */
const PROGRAMS: Array<[ProgramKind, string, string]> = [
  ['claude_code', 'Claude Code', 'claude'],
  ['codex', 'Codex CLI', 'codex'],
  ['gemini_cli', 'Gemini CLI', 'gemini'],
  ['command', 'Another command', ''],
];
type ProgramKind = 'claude_code' | 'codex' | 'gemini_cli' | 'command';

/** The executor the form describes: a known program needs no command, a command needs no JSON. */
function executorOf(kind: ProgramKind, fields: { command: string; args: string[]; model: string }) {
  if (kind === 'command') return { kind, command: fields.command, args: fields.args };
  return {
    kind,
    ...(fields.command ? { command: fields.command } : {}),
    ...(fields.args.length > 0 ? { args: fields.args } : {}),
    ...(fields.model ? { model: fields.model } : {}),
  };
}

function AddAgentForm(props: { workspace: Workspace }) {
  const [name, setName] = useState('');
  const [role, setRole] = useState<Agent['role']>('worker');
  const [kind, setKind] = useState<ProgramKind>('claude_code');
  const [command, setCommand] = useState('');
  const [model, setModel] = useState('');
  const [args, setArgs] = useState('');
  const action = useAction();
  const program = PROGRAMS.find(([k]) => k === kind)!;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const executor = executorOf(kind, { command: command.trim(), model: model.trim(), args: args.split('\n').map((a) => a.trim()).filter(Boolean) });
    await action.run(() => api<Agent>('POST', '/api/office/agents', validated(CreateAgentBody, { workspace_id: props.workspace.id, name, role, executor })));
  };
  const nameError = fieldError(action.error, 'name');
  const commandError = fieldError(action.error, 'command');
  return (
    <section className="welcome" aria-label="Add an agent">
      <h2>Add an agent</h2>
      <p className="hint">
        <strong>{props.workspace.name}</strong> has no agents yet. An agent is a program the scheduler runs when it wakes the agent: Claude Code,
        Codex CLI, Gemini CLI, or any command. The prompt arrives on stdin, and <code>OFFICE_API_URL</code> with a run token in the environment.
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
        <Field label="Program" hint={kind === 'command' ? 'Run without a shell; the last JSON line it prints is its result.' : `The scheduler runs ${program[2]} non-interactively and reads its usage, cost, session and limits.`}>
          <select name="executor_kind" value={kind} onChange={(e) => setKind(e.target.value as ProgramKind)}>
            {PROGRAMS.map(([k, label]) => <option key={k} value={k}>{label}</option>)}
          </select>
        </Field>
        <Field label="Command" error={commandError} hint={kind === 'command' ? 'e.g. node or /usr/local/bin/my-agent' : `Leave empty to find ${program[2]} on PATH.`}>
          <input name="command" value={command} onChange={(e) => setCommand(e.target.value)} placeholder={kind === 'command' ? 'node' : program[2]} />
        </Field>
        {kind !== 'command' && (
          <Field label="Model" hint="Optional: passed with the program's own model flag.">
            <input name="model" value={model} onChange={(e) => setModel(e.target.value)} />
          </Field>
        )}
        <Field label={kind === 'command' ? 'Arguments (one per line)' : 'Extra arguments (one per line)'}
          hint={kind === 'claude_code' ? 'e.g. --permission-mode and acceptEdits, on two lines' : undefined}>
          <textarea name="args" rows={3} value={args} onChange={(e) => setArgs(e.target.value)} placeholder={kind === 'command' ? 'agent.mjs' : ''} />
        </Field>
        <ErrorBox error={nameError || commandError ? null : action.error} />
        <footer><button type="submit" className="primary" disabled={action.busy}>Add agent</button></footer>
      </form>
    </section>
  );
}
