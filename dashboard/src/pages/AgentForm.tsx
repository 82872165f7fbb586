/**
 * The agent form, to add an agent and to change one: a name, a role and the program the scheduler
 * runs for it (Claude Code, Codex CLI, Gemini CLI or any command), with no JSON to write. The API's
 * own schemas check it before it is sent, and the API's messages show under their fields.
 */
import { useState, type FormEvent } from 'react';
import { CreateAgentBody, PatchAgentBody } from '../../../src/domain/schemas.js';
import { AGENT_ROLES } from '../../../src/domain/types.js';
import { ApiError, call, office } from '../api';
import { useAction } from '../hooks';
import type { Agent, Workspace } from '../types';
import { ErrorBox, Field, fieldError } from '../ui';
import { validated } from '../validate';

/** The programs the scheduler knows by name, and the plain command: [kind, label, its usual command]. */
const PROGRAMS: Array<[ProgramKind, string, string]> = [
  ['claude_code', 'Claude Code', 'claude'],
  ['codex', 'Codex CLI', 'codex'],
  ['gemini_cli', 'Gemini CLI', 'gemini'],
  ['command', 'Another command', ''],
];
type ProgramKind = 'claude_code' | 'codex' | 'gemini_cli' | 'command';
/** `keep`: an executor this form does not edit (none, an HTTP endpoint, an in-process function), left as it is. */
type Choice = ProgramKind | 'keep';
type Executor = NonNullable<Agent['executor']>;

interface ProgramFields {
  command: string;
  args: string[];
  model: string;
  cwd: string;
  /** Null: the form's environment field was left as it was read, and the stored env stays. */
  env: Record<string, string> | null;
}

function isProgram(kind: string | undefined): kind is ProgramKind {
  return PROGRAMS.some(([k]) => k === kind);
}

/**
 * The executor the form describes. What the form does not show of a stored one (its env, whose
 * values come back masked and are kept by the API as they are; its timeout; its prices) stays.
 */
function executorOf(kind: ProgramKind, fields: ProgramFields, stored: Agent['executor']) {
  const kept = stored && isProgram(stored.kind) ? keptFields(stored, kind) : {};
  const env = fields.env === null ? {} : Object.keys(fields.env).length > 0 ? { env: fields.env } : { env: undefined };
  const common = { ...kept, ...env, ...(fields.cwd ? { cwd: fields.cwd } : {}) };
  if (kind === 'command') return { kind, command: fields.command, args: fields.args, ...common };
  return {
    kind,
    ...(fields.command ? { command: fields.command } : {}),
    ...(fields.args.length > 0 ? { args: fields.args } : {}),
    ...(fields.model ? { model: fields.model } : {}),
    ...common,
  };
}

function keptFields(stored: Executor, kind: ProgramKind): Record<string, unknown> {
  const source = stored as Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  for (const key of ['env', 'timeout_sec', ...(kind === 'command' ? [] : ['prices'])]) if (source[key] !== undefined) kept[key] = source[key];
  return kept;
}

function fieldsOf(executor: Agent['executor']): Omit<ProgramFields, 'env'> & { env: string } {
  const source = (executor ?? {}) as { command?: string; args?: string[]; model?: string; cwd?: string; env?: Record<string, string> };
  return {
    command: source.command ?? '', args: source.args ?? [], model: source.model ?? '', cwd: source.cwd ?? '',
    // Stored values come back masked; sent back masked, the API keeps them (API.md, "Secrets are write-only").
    env: Object.entries(source.env ?? {}).map(([name, value]) => `${name}=${value}`).join('\n'),
  };
}

/** `NAME=value` lines as an env object; a line that is not one is the field's error, as the API would name it. */
function envOf(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of lines(text)) {
    const eq = line.indexOf('=');
    if (eq <= 0) throw new ApiError(400, 'validation_error', `executor.env: '${line}' is not NAME=value`, [{ path: 'executor.env', message: `'${line}' is not NAME=value` }]);
    env[line.slice(0, eq).trim()] = line.slice(eq + 1);
  }
  return env;
}

const lines = (text: string) => text.split('\n').map((line) => line.trim()).filter(Boolean);
const wholeNumber = (text: string) => (text.trim() === '' ? undefined : Number(text));

export function AgentForm(props: { workspace: Workspace; agent?: Agent; onSaved: (agent: Agent) => void; onCancel?: () => void }) {
  const stored = props.agent;
  const storedKind = stored?.executor?.kind;
  const [name, setName] = useState(stored?.name ?? '');
  const [role, setRole] = useState<Agent['role']>(stored?.role ?? 'worker');
  const [kind, setKind] = useState<Choice>(stored ? (isProgram(storedKind) ? storedKind : 'keep') : 'claude_code');
  const initial = fieldsOf(stored?.executor ?? null);
  const [command, setCommand] = useState(initial.command);
  const [model, setModel] = useState(initial.model);
  const [args, setArgs] = useState(initial.args.join('\n'));
  const [cwd, setCwd] = useState(initial.cwd);
  const [env, setEnv] = useState(initial.env);
  const [sessions, setSessions] = useState(String(stored?.max_concurrent_sessions ?? 1));
  const [cooldown, setCooldown] = useState(String(stored?.cooldown_sec ?? 10));
  const action = useAction();
  const program = PROGRAMS.find(([k]) => k === kind);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const saved = await action.run(() => {
      const executor = kind === 'keep' ? undefined : executorOf(kind, {
        command: command.trim(), model: model.trim(), args: lines(args), cwd: cwd.trim(), env: env === initial.env && stored ? null : envOf(env),
      }, stored?.executor ?? null);
      const fields = { name, role, ...(executor ? { executor } : {}), max_concurrent_sessions: wholeNumber(sessions), cooldown_sec: wholeNumber(cooldown) };
      return stored
        ? call(office.PATCH('/api/office/agents/{id}', { params: { path: { id: stored.id } }, body: validated(PatchAgentBody, fields) }))
        : call(office.POST('/api/office/agents', { body: validated(CreateAgentBody, { workspace_id: props.workspace.id, ...fields }) }));
    });
    if (saved) props.onSaved(saved);
  };

  const errorOf = (field: string) => fieldError(action.error, field);
  const shownErrors = ['name', 'command', 'model', 'cwd', 'env', 'max_concurrent_sessions', 'cooldown_sec'].some((field) => errorOf(field));
  return (
    <form className="card narrow agent-form" onSubmit={submit} noValidate aria-label={stored ? `Edit ${stored.name}` : 'Add an agent'}>
      {!stored && <p className="hint">It joins the workspace <strong>{props.workspace.name}</strong>.</p>}
      <Field label="Name" error={errorOf('name')}>
        <input name="agent_name" value={name} onChange={(e) => setName(e.target.value)} placeholder="Researcher" />
      </Field>
      <Field label="Role" hint="A coordinator or CEO also gets a heartbeat routine.">
        <select name="role" value={role} onChange={(e) => setRole(e.target.value as Agent['role'])}>
          {AGENT_ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
        </select>
      </Field>
      <Field label="Program" hint={programHint(kind, program?.[2], storedKind)}>
        <select name="executor_kind" value={kind} onChange={(e) => setKind(e.target.value as Choice)}>
          {kind === 'keep' && <option value="keep">{storedKind ? `Keep its ${storedKind} executor` : 'None: the workspace\'s default'}</option>}
          {PROGRAMS.map(([k, label]) => <option key={k} value={k}>{label}</option>)}
        </select>
      </Field>
      {kind !== 'keep' && (
        <>
          <Field label="Command" error={errorOf('command')} hint={kind === 'command' ? 'e.g. node or /usr/local/bin/my-agent' : `Leave empty to find ${program?.[2]} on PATH.`}>
            <input name="command" value={command} onChange={(e) => setCommand(e.target.value)} placeholder={kind === 'command' ? 'node' : program?.[2]} />
          </Field>
          {kind !== 'command' && (
            <Field label="Model" error={errorOf('model')} hint="Optional: passed with the program's own model flag.">
              <input name="model" value={model} onChange={(e) => setModel(e.target.value)} />
            </Field>
          )}
          <Field label={kind === 'command' ? 'Arguments (one per line)' : 'Extra arguments (one per line)'}
            hint={kind === 'claude_code' ? 'e.g. --permission-mode and acceptEdits, on two lines' : undefined}>
            <textarea name="args" rows={3} value={args} onChange={(e) => setArgs(e.target.value)} placeholder={kind === 'command' ? 'agent.mjs' : ''} />
          </Field>
          <Field label="Working directory" error={errorOf('cwd')} hint="Optional: where the program runs, such as the repository it works on.">
            <input name="cwd" value={cwd} onChange={(e) => setCwd(e.target.value)} placeholder="/path/to/repo" />
          </Field>
        </>
      )}
      <details className="more" open={Boolean(errorOf('max_concurrent_sessions') || errorOf('cooldown_sec') || errorOf('env'))}>
        <summary>More settings</summary>
        {kind !== 'keep' && (
          <Field label="Environment (one NAME=value per line)" error={errorOf('env')}
            hint="Added to the session's environment, such as an API key. Values are never shown again: ******** keeps the stored one.">
            <textarea name="env" rows={2} value={env} onChange={(e) => setEnv(e.target.value)} placeholder="ANTHROPIC_API_KEY=…" />
          </Field>
        )}
        <div className="grid2">
          <Field label="Sessions at once" error={errorOf('max_concurrent_sessions')} hint="How many runs of this agent may run together.">
            <input name="max_concurrent_sessions" type="number" min={1} step={1} value={sessions} onChange={(e) => setSessions(e.target.value)} />
          </Field>
          <Field label="Cooldown (seconds)" error={errorOf('cooldown_sec')} hint="The pause after each run before the next starts.">
            <input name="cooldown_sec" type="number" min={0} step={1} value={cooldown} onChange={(e) => setCooldown(e.target.value)} />
          </Field>
        </div>
      </details>
      <ErrorBox error={shownErrors ? null : action.error} />
      <footer>
        {props.onCancel && <button type="button" onClick={props.onCancel}>Cancel</button>}
        <button type="submit" className="primary" disabled={action.busy}>{stored ? 'Update agent' : 'Add agent'}</button>
      </footer>
    </form>
  );
}

function programHint(kind: Choice, usual: string | undefined, storedKind: string | undefined): string {
  if (kind === 'keep') return storedKind ? `This form does not edit a ${storedKind} executor; the API does.` : 'Runs use the project\'s or the workspace\'s default executor.';
  if (kind === 'command') return 'Run without a shell, the prompt on stdin; the last JSON line it prints is its result.';
  return `The scheduler runs ${usual} non-interactively and reads its usage, cost, session and limits.`;
}
