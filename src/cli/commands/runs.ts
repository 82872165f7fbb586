/** `office-scheduler runs` (list, show, transcript), `cancel <run>` and `quotas`. */
import { RUN_STATUSES } from '../../domain/types.js';
import { emit, emitList, oneOf, parse, text, usage, wholeNumber, withArgument, type Io } from '../args.js';
import { ApiClient } from '../client.js';
import type { Command } from '../command.js';
import { fields, table, time, usd } from '../format.js';
import { agentNames, agentOption, workspaceOption } from '../lookup.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from './wakeups.js';

/** What a run left to read at a glance: its error, else the summary its result gave. */
function outcomeOf(run: { error: string | null; result_json: Record<string, unknown> }): string {
  if (run.error) return run.error;
  return typeof run.result_json.summary === 'string' ? run.result_json.summary : '-';
}

async function runsList(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, {
    workspace: { type: 'string' }, agent: { type: 'string' }, task: { type: 'string' }, status: { type: 'string' }, limit: { type: 'string' },
  }, 0);
  const status = oneOf(values, 'status', RUN_STATUSES, 'a run status');
  const limit = wholeNumber(values, 'limit', 1, MAX_LIMIT) ?? DEFAULT_LIMIT;
  const api = ApiClient.fromEnv(io.env);
  const workspace = await workspaceOption(api, values);
  const agent = await agentOption(api, values, workspace);
  const runs = await api.call(api.office.GET('/api/office/runs', {
    params: { query: { workspace_id: workspace?.id, agent_id: agent?.id, task_id: text(values, 'task'), status, limit } },
  }));
  return emitList(io, values, runs, 'No runs.', async (list) => {
    const names = await agentNames(api, workspace?.id);
    return table(['ID', 'STARTED', 'AGENT', 'STATUS', 'TASK', 'COST', 'OUTCOME'], list.map((r) => [
      r.id, time(r.started_at ?? r.created_at), names.get(r.agent_id) ?? r.agent_id, r.status, r.task_id ?? '-', usd(r.cost_usd), outcomeOf(r),
    ]), 80);
  });
}

async function runsShow(args: string[], io: Io): Promise<number> {
  const { values, argument: id } = withArgument(args, {}, 'runs show needs a run id: office-scheduler runs show <id>');
  const api = ApiClient.fromEnv(io.env);
  const run = await api.call(api.office.GET('/api/office/runs/{id}', { params: { path: { id } } }));
  return emit(io, values, run, (r) => [
    `Run ${r.id}: ${r.status}`,
    fields([
      ['agent', r.agent_id],
      ['task', r.task_id],
      ['wakeup', `${r.wakeup_id} (office-scheduler wakeups why ${r.wakeup_id})`],
      ['attempt', String(r.attempt)],
      ['executor', r.executor_kind],
      ['started', time(r.started_at)],
      ['finished', time(r.finished_at)],
      ['cost', r.cost_usd === null ? null : `${usd(r.cost_usd)}${r.cost_note ? ` (${r.cost_note})` : ''}`],
      ['session', r.cli_session_id ?? null],
      ['error', r.error],
      ['summary', typeof r.result_json.summary === 'string' ? r.result_json.summary : null],
    ]),
    '',
    `Its transcript: office-scheduler runs transcript ${r.id}`,
  ].join('\n'));
}

async function runsTranscript(args: string[], io: Io): Promise<number> {
  const { values, argument: id } = withArgument(args, {}, 'runs transcript needs a run id: office-scheduler runs transcript <id>');
  const api = ApiClient.fromEnv(io.env);
  const transcript = await api.call(api.office.GET('/api/office/runs/{id}/transcript', { params: { path: { id } } }));
  return emit(io, values, transcript, (t) => [
    ...t.events.map((e) => `${time(e.at)} ${e.stream}${e.type === 'line' ? '' : ` ${e.type}`}: ${e.text}`),
    ...(t.events.length === 0 ? ['No transcript (the run has printed nothing yet).'] : []),
    ...(t.truncated ? ['(cut: the transcript was over its size limit; the end is kept)'] : []),
  ].join('\n'));
}

async function cancel(args: string[], io: Io): Promise<number> {
  const { values, argument: id } = withArgument(args, { reason: { type: 'string' } }, 'cancel needs a run id: office-scheduler cancel <run id> [--reason <text>]');
  const reason = text(values, 'reason');
  if (reason !== undefined && (reason.trim() === '' || reason.length > 2000)) usage('--reason expects 1 to 2000 characters');
  const api = ApiClient.fromEnv(io.env);
  const run = await api.call(api.office.POST('/api/office/runs/{id}/cancel', { params: { path: { id } }, body: reason === undefined ? {} : { reason } }));
  return emit(io, values, run, (r) => `Cancelled run ${r.id}: it is ${r.status}, and its wakeup is not retried.`);
}

async function quotas(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, { all: { type: 'boolean' } }, 0);
  const api = ApiClient.fromEnv(io.env);
  const list = await api.call(api.office.GET('/api/office/quotas', { params: { query: values.all ? { all: 'true' } : {} } }));
  return emitList(io, values, list, values.all ? 'No quotas known yet.' : 'No subscription is at its limit.', (quotas) => table(
    ['KEY', 'KIND', 'EXHAUSTED UNTIL', 'AGENTS START', 'AGENTS', 'REASON'],
    quotas.map((q) => [q.key, q.kind, time(q.exhausted_until), time(q.release_at), String(q.agents.length), q.warning ?? q.reason ?? '-']),
    80,
  ));
}

export const runs: Command = {
  name: 'runs',
  summary: 'Runs: one session of an agent each, with its outcome, cost and transcript',
  forms: {
    list: {
      synopsis: 'list [--workspace <name|id>] [--agent <name|id>] [--task <id>] [--status <status>] [--limit <n>]',
      does: 'runs, newest first, with their agent, status, cost and outcome',
      run: runsList,
    },
    show: { synopsis: 'show <id>', does: 'one run: its wakeup, attempt, times, cost, session, and error or summary', run: runsShow },
    transcript: { synopsis: 'transcript <id>', does: 'what the run\'s session printed, line by line', run: runsTranscript },
  },
  notes: `--status is one of ${RUN_STATUSES.join(', ')}; --limit is 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}).`,
};

export const cancelCommand: Command = {
  name: 'cancel',
  summary: 'Stop a running run',
  forms: {
    '': { synopsis: '<run id> [--reason <text>]', does: 'stop the run\'s session; the run ends cancelled and is not retried', run: cancel },
  },
  notes: 'A member may cancel the runs done on its behalf; the reason is kept in the run\'s error and in the activity feed.',
};

export const quotasCommand: Command = {
  name: 'quotas',
  summary: 'Subscriptions at their limit, and the agents they hold',
  forms: {
    '': { synopsis: '[--all]', does: 'the exhausted quotas, when they reset and how many agents wait; --all lists every quota seen', run: quotas },
  },
};
