/** `office-scheduler wakeups`: the wakeup requests, and why one did or did not wake its agent. */
import { WAKEUP_STATUSES } from '../../domain/types.js';
import { WAKEUP_SOURCES } from '../../domain/wakeupSources.js';
import { emit, emitList, oneOf, parse, wholeNumber, withArgument, type Io } from '../args.js';
import { ApiClient } from '../client.js';
import type { Command } from '../command.js';
import { table, time } from '../format.js';
import { agentNames, agentOption, workspaceOption } from '../lookup.js';

/** How many a list shows when --limit is not given. */
export const DEFAULT_LIMIT = 50;
/** The lists' own upper bound (the API's). */
export const MAX_LIMIT = 1000;

async function wakeupsList(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, {
    workspace: { type: 'string' }, agent: { type: 'string' }, status: { type: 'string' }, source: { type: 'string' }, limit: { type: 'string' },
  }, 0);
  const status = oneOf(values, 'status', WAKEUP_STATUSES, 'a wakeup status');
  const source = oneOf(values, 'source', WAKEUP_SOURCES, 'a wakeup source');
  const limit = wholeNumber(values, 'limit', 1, MAX_LIMIT) ?? DEFAULT_LIMIT;
  const api = ApiClient.fromEnv(io.env);
  const workspace = await workspaceOption(api, values);
  const agent = await agentOption(api, values, workspace);
  const wakeups = await api.call(api.office.GET('/api/office/wakeups', {
    params: { query: { workspace_id: workspace?.id, agent_id: agent?.id, status, source, limit } },
  }));
  return emitList(io, values, wakeups, 'No wakeups.', async (list) => {
    const names = await agentNames(api, workspace?.id);
    return table(['ID', 'REQUESTED', 'AGENT', 'SOURCE', 'STATUS', 'WHY'], list.map((w) => [
      w.id, time(w.requested_at), names.get(w.agent_id) ?? w.agent_id, w.source, w.cancel_reason ? `${w.status} (${w.cancel_reason})` : w.status, w.explain,
    ]), 90);
  });
}

async function wakeupsWhy(args: string[], io: Io): Promise<number> {
  const { values, argument: id } = withArgument(args, {}, 'wakeups why needs a wakeup id: office-scheduler wakeups why <id>');
  const api = ApiClient.fromEnv(io.env);
  const wakeup = await api.call(api.office.GET('/api/office/wakeups/{id}', { params: { path: { id } } }));
  return emit(io, values, { id: wakeup.id, status: wakeup.status, explain: wakeup.explain }, (w) => w.explain);
}

export const wakeups: Command = {
  name: 'wakeups',
  summary: 'Wakeup requests: every reason an agent was, or was not, woken',
  forms: {
    list: {
      synopsis: 'list [--workspace <name|id>] [--agent <name|id>] [--status <status>] [--source <source>] [--limit <n>]',
      does: 'wakeups, newest first, each with why it is where it is',
      run: wakeupsList,
    },
    why: { synopsis: 'why <id>', does: 'why a wakeup did (or did not) wake its agent, in one sentence', run: wakeupsWhy },
  },
  notes: `--status is one of ${WAKEUP_STATUSES.join(', ')};\n--source is one of ${WAKEUP_SOURCES.join(', ')}; --limit is 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}).`,
};
