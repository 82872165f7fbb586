/**
 * The "Create Routine" dialog (and the edit dialog on the routine page). It validates with the
 * API's own zod schemas, imported from src/domain/schemas.ts, so the form accepts exactly what
 * the API accepts; cron expressions are checked and previewed with the API's cron module.
 */
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import type { z } from 'zod';
import { isValidTimeZone, nextFireTimes, validateCron } from '../../../src/domain/cron.js';
import { CATCH_UP_POLICIES, CATCH_UP_POLICY_SENTENCES, CONCURRENCY_POLICIES, CONCURRENCY_POLICY_SENTENCES } from '../../../src/domain/routines.js';
import { CreateRoutineBody, PatchRoutineBody } from '../../../src/domain/schemas.js';
import { VARIABLE_TYPES } from '../../../src/domain/templates.js';
import { ApiError, call, office } from '../api';
import { validated } from '../validate';
import type { Agent, Routine, VariableDecl } from '../types';
import { ErrorBox, Field, Modal, ZonedTime } from '../ui';

type TriggerKind = 'schedule' | 'webhook' | 'manual' | 'none';

interface VariableRow {
  name: string;
  type: VariableDecl['type'];
  required: boolean;
  default: string;
  options: string;
}

export interface RoutineFormState {
  name: string;
  description: string;
  assignee: string;
  status: 'active' | 'paused';
  lightweight: boolean;
  taskTitle: string;
  taskDescription: string;
  triggerKind: TriggerKind;
  cron: string;
  timezone: string;
  signingMode: 'none' | 'bearer' | 'hmac_sha256';
  secret: string;
  concurrency: string;
  catchUp: string;
  catchUpMax: string;
  variables: VariableRow[];
}

const EMPTY: RoutineFormState = {
  name: '', description: '', assignee: '', status: 'active', lightweight: false, taskTitle: '', taskDescription: '',
  triggerKind: 'schedule', cron: '0 9 * * 1-5', timezone: '', signingMode: 'hmac_sha256', secret: '',
  concurrency: 'coalesce_if_active', catchUp: 'skip_missed', catchUpMax: '25', variables: [],
};

function fromRoutine(routine: Routine): RoutineFormState {
  return {
    ...EMPTY,
    name: routine.name,
    description: routine.description,
    assignee: routine.assignee_agent_instance_id,
    status: routine.status === 'paused' ? 'paused' : 'active',
    lightweight: routine.task_template === null,
    taskTitle: routine.task_template?.title ?? '',
    taskDescription: routine.task_template?.description ?? '',
    triggerKind: 'none',
    concurrency: routine.concurrency_policy,
    catchUp: routine.catch_up_policy,
    catchUpMax: String(routine.catch_up_max),
    variables: routine.variables.map((v) => ({
      name: v.name, type: v.type, required: v.required ?? false,
      default: v.default === undefined || v.default === null ? '' : String(v.default),
      options: (v.options ?? []).join(', '),
    })),
  };
}

function variableBody(row: VariableRow) {
  const value = row.default.trim();
  let fallback: string | number | boolean | undefined;
  if (value !== '') {
    if (row.type === 'number' && Number.isFinite(Number(value))) fallback = Number(value);
    else if (row.type === 'boolean' && (value === 'true' || value === 'false')) fallback = value === 'true';
    else fallback = row.default;
  }
  return {
    name: row.name.trim(),
    type: row.type,
    required: row.required,
    ...(fallback !== undefined ? { default: fallback } : {}),
    ...(row.type === 'select' ? { options: row.options.split(',').map((o) => o.trim()).filter(Boolean) } : {}),
  };
}

function triggerBody(f: RoutineFormState) {
  switch (f.triggerKind) {
    case 'schedule':
      return [{ kind: 'schedule' as const, cron_expression: f.cron, ...(f.timezone.trim() ? { timezone: f.timezone.trim() } : {}) }];
    case 'webhook':
      return [{ kind: 'webhook' as const, signing_mode: f.signingMode, ...(f.secret ? { secret: f.secret } : {}) }];
    case 'manual':
      return [{ kind: 'manual' as const }];
    case 'none':
      return [];
  }
}

/** The fields both bodies share. */
function commonBody(f: RoutineFormState) {
  return {
    name: f.name,
    description: f.description,
    assignee_agent_instance_id: f.assignee,
    status: f.status,
    concurrency_policy: f.concurrency,
    catch_up_policy: f.catchUp,
    ...(f.catchUpMax.trim() !== '' ? { catch_up_max: Number(f.catchUpMax) } : {}),
    task_template: f.lightweight ? null : { title: f.taskTitle, ...(f.taskDescription ? { description: f.taskDescription } : {}) },
    variables: f.variables.map(variableBody),
  };
}

export function createBody(f: RoutineFormState, workspaceId: string) {
  return { workspace_id: workspaceId, ...commonBody(f), triggers: triggerBody(f) };
}

/** Every zone the browser knows, and `current` even if it does not. */
function zonesWith(current: string): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const all = zones.includes('UTC') ? zones : ['UTC', ...zones];
  return all.includes(current) ? all : [current, ...all];
}

function sentenceOf(sentences: Record<string, string>, policy: string): string | undefined {
  return sentences[policy];
}

/** zod issues by dotted path (`triggers.0.cron_expression`), first message wins. */
function issuesByPath(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const path = issue.path.map(String).join('.') || '_';
    // An empty required text field reads better as "Required" than as zod's length rule.
    const empty = issue.code === 'too_small' && issue.origin === 'string' && Number(issue.minimum) === 1;
    out[path] ??= empty ? 'Required' : issue.message;
  }
  return out;
}

export function RoutineForm(props: {
  mode: 'create' | 'edit';
  workspaceId: string;
  /** The workspace's time zone: a new schedule's, unless the form names another (as the server saves it). */
  workspaceZone: string;
  agents: Agent[];
  routine?: Routine;
  onClose: () => void;
  onSaved: (routine: Routine) => void;
}) {
  const [form, setForm] = useState<RoutineFormState>(() => (props.routine
    ? fromRoutine(props.routine)
    : { ...EMPTY, assignee: props.agents[0]?.id ?? '', timezone: props.workspaceZone }));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [serverError, setServerError] = useState<ApiError | null>(null);
  const [saving, setSaving] = useState(false);
  const [attempted, setAttempted] = useState(false);
  const set = <K extends keyof RoutineFormState>(key: K, value: RoutineFormState[K]) => setForm((f) => ({ ...f, [key]: value }));
  const setVariable = (index: number, patch: Partial<VariableRow>) =>
    setForm((f) => ({ ...f, variables: f.variables.map((row, i) => (i === index ? { ...row, ...patch } : row)) }));

  const scheduleZone = form.timezone.trim() || props.workspaceZone;
  const cronCheck = useMemo(() => {
    if (form.triggerKind !== 'schedule' || !form.cron.trim()) return null;
    const zone = scheduleZone;
    // A bad zone is the time zone field's message (from the schema), not the cron field's.
    if (!isValidTimeZone(zone)) return null;
    const valid = validateCron(form.cron.trim(), zone);
    if (!valid.ok) return { error: valid.message, times: [] as Date[] };
    try {
      return { error: null, times: nextFireTimes(form.cron.trim(), zone, new Date(), 3) };
    } catch (error) {
      return { error: (error as Error).message, times: [] as Date[] };
    }
  }, [form.triggerKind, form.cron, scheduleZone]);

  const bodyOf = (f: RoutineFormState) => (props.mode === 'create' ? createBody(f, props.workspaceId) : commonBody(f));
  const validate = (f: RoutineFormState): Record<string, string> => {
    const body = bodyOf(f);
    const parsed = props.mode === 'create' ? CreateRoutineBody.safeParse(body) : PatchRoutineBody.safeParse(body);
    const found = parsed.success ? {} : issuesByPath(parsed.error);
    if (cronCheck?.error) found['triggers.0.cron_expression'] = cronCheck.error;
    return found;
  };
  // After the first attempt, messages follow the edits: a fixed field loses its message at once.
  useEffect(() => {
    if (attempted) setErrors(validate(form));
  }, [form, cronCheck]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setServerError(null);
    setAttempted(true);
    const found = validate(form);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setSaving(true);
    try {
      const saved = props.mode === 'create'
        ? await call(office.POST('/api/office/routines', { body: validated(CreateRoutineBody, createBody(form, props.workspaceId)) }))
        : await call(office.PATCH('/api/office/routines/{id}', { params: { path: { id: props.routine!.id } }, body: validated(PatchRoutineBody, commonBody(form)) }));
      props.onSaved(saved);
    } catch (error) {
      setServerError(error as ApiError);
      const details = (error as ApiError).details ?? [];
      const fromServer: Record<string, string> = {};
      for (const d of details) if (d.path && d.message) fromServer[d.path.replace(/^body\./, '')] = d.message;
      setErrors(fromServer);
    } finally {
      setSaving(false);
    }
  };

  const shown = new Set<string>();
  const err = (path: string) => {
    shown.add(path);
    return errors[path];
  };
  const fields = (
    <>
      <div className="grid2">
        <Field label="Name" error={err('name')}>
          <input name="name" value={form.name} onChange={(e) => set('name', e.target.value)} autoFocus />
        </Field>
        <Field label="Assignee" error={err('assignee_agent_instance_id')}>
          <select name="assignee" value={form.assignee} onChange={(e) => set('assignee', e.target.value)}>
            <option value="">Choose an agent…</option>
            {props.agents.map((agent) => <option key={agent.id} value={agent.id}>{agent.name} ({agent.role})</option>)}
          </select>
        </Field>
      </div>
      <Field label="Description" error={err('description')}>
        <textarea name="description" rows={2} value={form.description} onChange={(e) => set('description', e.target.value)} />
      </Field>

      <fieldset>
        <legend>Task template</legend>
        <label className="check">
          <input type="checkbox" name="lightweight" checked={form.lightweight} onChange={(e) => set('lightweight', e.target.checked)} />
          Lightweight: wake the assignee without creating a task
        </label>
        {!form.lightweight && (
          <>
            <Field label="Task title" error={err('task_template.title') ?? err('task_template')} hint="{{name}} inserts a variable; {{date}} and {{datetime}} are built in">
              <input name="task_title" value={form.taskTitle} onChange={(e) => set('taskTitle', e.target.value)} />
            </Field>
            <Field label="Task description" error={err('task_template.description')}>
              <textarea name="task_description" rows={3} value={form.taskDescription} onChange={(e) => set('taskDescription', e.target.value)} />
            </Field>
          </>
        )}
      </fieldset>

      {props.mode === 'create' && (
        <fieldset>
          <legend>Trigger</legend>
          <div className="grid2">
            <Field label="Kind" error={err('triggers.0.kind')}>
              <select name="trigger_kind" value={form.triggerKind} onChange={(e) => set('triggerKind', e.target.value as TriggerKind)}>
                <option value="schedule">Schedule (cron)</option>
                <option value="webhook">Webhook</option>
                <option value="manual">Manual only</option>
                <option value="none">None yet</option>
              </select>
            </Field>
            {form.triggerKind === 'schedule' && (
              <Field label="Time zone" error={err('triggers.0.timezone')}
                hint={scheduleZone === props.workspaceZone ? `The workspace's zone. Choose another for this schedule alone.` : `Not the workspace's zone (${props.workspaceZone}): this schedule alone runs in it.`}>
                <select name="timezone" value={scheduleZone} onChange={(e) => set('timezone', e.target.value)}>
                  {zonesWith(scheduleZone).map((zone) => <option key={zone} value={zone}>{zone}{zone === props.workspaceZone ? ' (workspace)' : ''}</option>)}
                </select>
              </Field>
            )}
            {form.triggerKind === 'webhook' && (
              <Field label="Signing" error={err('triggers.0.signing_mode')}>
                <select name="signing_mode" value={form.signingMode} onChange={(e) => set('signingMode', e.target.value as RoutineFormState['signingMode'])}>
                  <option value="hmac_sha256">HMAC SHA-256</option>
                  <option value="bearer">Bearer secret</option>
                  <option value="none">None</option>
                </select>
              </Field>
            )}
          </div>
          {form.triggerKind === 'schedule' && (
            <Field label="Cron expression" error={err('triggers.0.cron_expression')} hint="5 fields, or 6 with seconds first">
              <input name="cron" value={form.cron} onChange={(e) => set('cron', e.target.value)} />
            </Field>
          )}
          {form.triggerKind === 'schedule' && cronCheck && !cronCheck.error && (
            <p className="hint" data-testid="cron-preview">
              Next: {cronCheck.times.length === 0 ? 'never' : cronCheck.times.map((t, i) => (
                <span key={t.toISOString()}>{i > 0 && ' · '}<ZonedTime at={t.toISOString()} zone={scheduleZone} /></span>
              ))}
            </p>
          )}
          {form.triggerKind === 'webhook' && form.signingMode !== 'none' && (
            <Field label="Secret" error={err('triggers.0.secret')} hint="Empty: one is generated and shown once">
              <input name="secret" value={form.secret} onChange={(e) => set('secret', e.target.value)} />
            </Field>
          )}
        </fieldset>
      )}

      <fieldset>
        <legend>Policies</legend>
        <div className="grid3">
          <Field label="Concurrency policy" error={err('concurrency_policy')} hint={sentenceOf(CONCURRENCY_POLICY_SENTENCES, form.concurrency)}>
            <select name="concurrency_policy" value={form.concurrency} onChange={(e) => set('concurrency', e.target.value)}>
              {CONCURRENCY_POLICIES.map((p) => <option key={p} value={p}>{p}</option>)}
            </select>
          </Field>
          <Field label="Catch-up policy" error={err('catch_up_policy')} hint={sentenceOf(CATCH_UP_POLICY_SENTENCES, form.catchUp)}>
            <select name="catch_up_policy" value={form.catchUp} onChange={(e) => set('catchUp', e.target.value)}>
              {CATCH_UP_POLICIES.map((p) => <option key={p} value={p}>{p}</option>)}
            </select>
          </Field>
          <Field label="Catch-up max" error={err('catch_up_max')} hint="The most missed times one catch-up fires.">
            <input name="catch_up_max" type="number" value={form.catchUpMax} onChange={(e) => set('catchUpMax', e.target.value)} />
          </Field>
        </div>
        <div className="radios" role="radiogroup" aria-label="Initial status">
          {(['active', 'paused'] as const).map((status) => (
            <label key={status} className="check">
              <input type="radio" name="status" value={status} checked={form.status === status} onChange={() => set('status', status)} /> {status}
            </label>
          ))}
        </div>
      </fieldset>

      <fieldset>
        <legend>Variables</legend>
        {form.variables.length === 0 && <p className="hint">None declared. Placeholders in the template are declared as optional text automatically.</p>}
        {form.variables.map((row, index) => (
          <div className="variable-row" key={index} data-testid={`variable-${index}`}>
            <Field label="Name" error={err(`variables.${index}.name`)}>
              <input name={`var_name_${index}`} value={row.name} onChange={(e) => setVariable(index, { name: e.target.value })} />
            </Field>
            <Field label="Type" error={err(`variables.${index}.type`)}>
              <select name={`var_type_${index}`} value={row.type} onChange={(e) => setVariable(index, { type: e.target.value as VariableRow['type'] })}>
                {VARIABLE_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
              </select>
            </Field>
            <Field label="Default" error={err(`variables.${index}.default`)}>
              <input name={`var_default_${index}`} value={row.default} onChange={(e) => setVariable(index, { default: e.target.value })} />
            </Field>
            {row.type === 'select' && (
              <Field label="Options" error={err(`variables.${index}.options`)} hint="comma-separated">
                <input name={`var_options_${index}`} value={row.options} onChange={(e) => setVariable(index, { options: e.target.value })} />
              </Field>
            )}
            <label className="check">
              <input type="checkbox" name={`var_required_${index}`} checked={row.required} onChange={(e) => setVariable(index, { required: e.target.checked })} /> required
            </label>
            <button type="button" className="link danger" onClick={() => set('variables', form.variables.filter((_, i) => i !== index))}>remove</button>
          </div>
        ))}
        <button type="button" onClick={() => set('variables', [...form.variables, { name: '', type: 'text', required: false, default: '', options: '' }])}>
          Add variable
        </button>
      </fieldset>
    </>
  );
  const unplaced = Object.entries(errors).filter(([path]) => !shown.has(path));

  return (
    <Modal title={props.mode === 'create' ? 'Create Routine' : `Edit ${props.routine?.name ?? 'routine'}`} onClose={props.onClose} wide>
      <form onSubmit={submit} noValidate>
        {fields}
        {unplaced.length > 0 && (
          <ul className="error" role="alert">
            {unplaced.map(([path, message]) => <li key={path}><code>{path}</code>: {message}</li>)}
          </ul>
        )}
        <ErrorBox error={serverError} />
        <footer>
          <button type="button" onClick={props.onClose}>Cancel</button>
          <button type="submit" className="primary" disabled={saving}>{props.mode === 'create' ? 'Create routine' : 'Save'}</button>
        </footer>
      </form>
    </Modal>
  );
}
