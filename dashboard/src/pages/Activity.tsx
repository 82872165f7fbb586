/**
 * The activity feed: every decision the scheduler took, newest first, current through the live
 * stream. The filters live in the URL, so a filtered feed can be linked to.
 */
import { activitySentence } from '../../../src/domain/activityCodes.js';
import { query, useApi } from '../hooks';
import { Link, navigate, useLocation } from '../router';
import type { ActivityEntry, Agent } from '../types';
import { Badge, Empty, ErrorBox, FilterSelect, ApiSentence, Loading, Time } from '../ui';
import { useWorkspace } from '../workspace';

/** About a busy day of decisions for a small office; older entries are a filter (code, agent) away. */
const FEED_LIMIT = 500;

/** Warnings in amber, failures in red, the rest plain: the code says which. */
function codeTone(code: string) {
  if (/fail|error|escalat|exceed/.test(code)) return 'bad' as const;
  if (/skip|cancel|cap|defer|paused|alert|loop/.test(code)) return 'warn' as const;
  return 'muted' as const;
}

export function ActivityPage() {
  const { workspace } = useWorkspace();
  const { search } = useLocation();
  const filters = {
    code: search.get('code') ?? '',
    agent_id: search.get('agent_id') ?? '',
    unattended: search.get('unattended') === 'true',
  };
  const setFilter = (next: Partial<typeof filters>) =>
    navigate(`/office/activity${query({ ...filters, ...next, unattended: (next.unattended ?? filters.unattended) && 'true' })}`, { replace: true });

  const ws = workspace?.id;
  const agents = useApi<Agent[]>(ws ? `/api/office/agents${query({ workspace_id: ws })}` : null);
  const feed = useApi<ActivityEntry[]>(ws
    ? `/api/office/activity${query({ workspace_id: ws, code: filters.code, agent_id: filters.agent_id, unattended: filters.unattended && 'true', limit: FEED_LIMIT })}`
    : null);
  // The codes to choose from: those the workspace's recent feed holds (one shared request when unfiltered).
  const recent = useApi<ActivityEntry[]>(ws ? `/api/office/activity${query({ workspace_id: ws, limit: FEED_LIMIT })}` : null);
  const codes = [...new Set([...(recent.data ?? []).map((e) => e.code), ...(filters.code ? [filters.code] : [])])].sort();
  const agentName = (id: string) => agents.data?.find((a) => a.id === id)?.name ?? id;
  const rows = feed.data ?? [];

  if (!workspace) return <Loading what="workspace" />;
  return (
    <section>
      <header className="page-head"><h1>Activity</h1></header>
      <form className="filters" aria-label="Filter activity" onSubmit={(e) => e.preventDefault()}>
        <FilterSelect label="Code" name="code" value={filters.code} any="Any code" options={codes} onChange={(code) => setFilter({ code })} />
        <FilterSelect label="Agent" name="agent_id" value={filters.agent_id} any="All agents"
          options={agents.data?.map((a) => ({ value: a.id, label: a.name }))} onChange={(agent_id) => setFilter({ agent_id })} />
        <label className="check">
          <input type="checkbox" name="unattended" checked={filters.unattended} onChange={(e) => setFilter({ unattended: e.target.checked })} />
          Unattended only
        </label>
      </form>
      <ErrorBox error={feed.error} />
      {feed.data === undefined ? <Loading what="activity" /> : rows.length === 0 ? <Empty>No activity matches.</Empty> : (
        <table className="list compact" aria-label="Activity">
          <thead><tr><th>When</th><th>Code</th><th>Agent</th><th>What happened</th><th>About</th></tr></thead>
          <tbody>
            {rows.map((entry) => (
              <tr key={entry.id} data-code={entry.code} data-activity-id={entry.id}>
                <td><Time at={entry.created_at} /></td>
                <td><Badge tone={codeTone(entry.code)} title={activitySentence(entry.code)}>{entry.code}</Badge>{entry.unattended && <Badge tone="info" title={`Caused by a cron or webhook fire${entry.on_behalf_of ? `, on behalf of ${entry.on_behalf_of}` : ''}`}>unattended</Badge>}</td>
                <td>{entry.agent_id ? <Link to={`/office/agents/${entry.agent_id}`}>{agentName(entry.agent_id)}</Link> : <span className="muted">-</span>}</td>
                <td className="explain"><ApiSentence text={entry.message} /></td>
                <td className="links">
                  {entry.task_id && <Link to={`/office/tasks/${entry.task_id}`}>task</Link>}
                  {entry.wakeup_id && <Link to={`/office/wakeups${query({ id: entry.wakeup_id })}`}>wakeup</Link>}
                  {entry.run_id && <Link to={`/office/runs/${entry.run_id}`}>run</Link>}
                  {entry.routine_id && <Link to={`/office/routines/${entry.routine_id}`}>routine</Link>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
