/** `office-scheduler routines`: list the routines, fire one now. */
import { emit, emitList, parse, texts, usage, withArgument, type Io } from '../args.js';
import { ApiClient } from '../client.js';
import type { Command } from '../command.js';
import { table, time } from '../format.js';
import { agentNames, workspaceNames, workspaceOption, workspaceQuery } from '../lookup.js';

async function routinesList(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, { workspace: { type: 'string' } }, 0);
  const api = ApiClient.fromEnv(io.env);
  const workspace = await workspaceOption(api, values);
  const routines = await api.call(api.office.GET('/api/office/routines', { params: { query: workspaceQuery(workspace?.id) } }));
  return emitList(io, values, routines, workspace ? `No routines in workspace '${workspace.name}'.` : 'No routines.', async (list) => {
    const [names, workspaceName] = await Promise.all([agentNames(api, workspace?.id), workspaceNames(api, workspace)]);
    return table(['ID', 'NAME', 'WORKSPACE', 'STATUS', 'TRIGGER', 'CRON', 'NEXT FIRE', 'LAST RUN', 'ASSIGNEE'], list.map((r) => {
      const next = r.triggers.filter((t) => t.enabled && t.next_run_at).map((t) => t.next_run_at!).sort()[0];
      return [
        r.id, r.name, workspaceName.get(r.workspace_id) ?? r.workspace_id, r.status,
        [...new Set(r.triggers.map((t) => t.kind))].join(',') || 'none',
        r.triggers.filter((t) => t.kind === 'schedule').map((t) => t.cron_expression).join('; ') || '-',
        r.status === 'active' ? time(next) : '-',
        r.last_run ? `${r.last_run.status} ${time(r.last_run.started_at)}` : 'never',
        names.get(r.assignee_agent_instance_id) ?? r.assignee_agent_instance_id,
      ];
    }));
  });
}

/** `--var a=1 --var b=x`: values are strings; the API coerces them to each variable's declared type. */
function parseVars(vars: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of vars) {
    const eq = pair.indexOf('=');
    if (eq <= 0) usage(`--var expects key=value, got '${pair}'`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

async function routinesFire(args: string[], io: Io): Promise<number> {
  const { values, argument: id } = withArgument(args, { var: { type: 'string', multiple: true } }, 'routines fire needs a routine id: office-scheduler routines fire <id> [--var key=value]');
  const variables = parseVars(texts(values, 'var'));
  const api = ApiClient.fromEnv(io.env);
  const result = await api.call(api.office.POST('/api/office/routines/{id}/fire', { params: { path: { id } }, body: { variables } }));
  return emit(io, values, result, ({ routine_run: run }) => {
    const extra = [run.linked_task_id && `task ${run.linked_task_id}`, run.linked_wakeup_id && `wakeup ${run.linked_wakeup_id}`, run.skip_reason && `(${run.skip_reason})`].filter(Boolean).join(', ');
    return `Fired routine ${id}: routine run ${run.id} is ${run.status}${extra ? `; ${extra}` : ''}`;
  });
}

export const routines: Command = {
  name: 'routines',
  summary: 'Routines: what wakes agents on a schedule, a webhook or by hand',
  forms: {
    list: { synopsis: 'list [--workspace <name|id>]', does: 'routines with their workspace, triggers, next fire and last run', run: routinesList },
    fire: { synopsis: 'fire <id> [--var key=value]…', does: 'fire a routine now; --var sets a template variable', run: routinesFire },
  },
};
