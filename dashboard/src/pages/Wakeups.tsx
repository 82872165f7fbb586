import { WAKEUP_STATUSES } from '../../../src/domain/types.js';
import { WAKEUP_SOURCES } from '../../../src/domain/wakeupSources.js';
import { WAKEUP_BADGE_LABELS, wakeupBadges } from '../format';
import { query, useApi } from '../hooks';
import { Link, navigate, useLocation } from '../router';
import type { Agent, Wakeup } from '../types';
import { Badge, Empty, ErrorBox, Loading, Time } from '../ui';
import { useWorkspace } from '../workspace';

/** The filters live in the URL, so a filtered list can be linked to. */
export function WakeupsPage() {
  const { workspace } = useWorkspace();
  const { search } = useLocation();
  const filters = {
    agent_id: search.get('agent_id') ?? '',
    status: search.get('status') ?? '',
    source: search.get('source') ?? '',
    badge: search.get('badge') ?? '',
    id: search.get('id') ?? '',
  };
  const setFilter = (key: keyof typeof filters, value: string) =>
    navigate(`/office/wakeups${query({ ...filters, [key]: value })}`, { replace: true });

  const agents = useApi<Agent[]>(workspace ? `/api/office/agents${query({ workspace_id: workspace.id })}` : null);
  const wakeups = useApi<Wakeup[]>(workspace
    ? `/api/office/wakeups${query({ workspace_id: workspace.id, agent_id: filters.agent_id, status: filters.status, source: filters.source, limit: 200 })}`
    : null);
  const agentName = (id: string) => agents.data?.find((a) => a.id === id)?.name ?? id;
  const rows = (wakeups.data ?? []).filter((w) =>
    (!filters.badge || wakeupBadges(w).some((b) => b.label === filters.badge)) && (!filters.id || w.id === filters.id));

  return (
    <section>
      <header className="page-head"><h1>Wakeups</h1></header>
      <form className="filters" aria-label="Filter wakeups" onSubmit={(e) => e.preventDefault()}>
        <label>Agent
          <select name="agent_id" value={filters.agent_id} onChange={(e) => setFilter('agent_id', e.target.value)}>
            <option value="">All agents</option>
            {agents.data?.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
          </select>
        </label>
        <label>Status
          <select name="status" value={filters.status} onChange={(e) => setFilter('status', e.target.value)}>
            <option value="">Any status</option>
            {WAKEUP_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        <label>Source
          <select name="source" value={filters.source} onChange={(e) => setFilter('source', e.target.value)}>
            <option value="">Any source</option>
            {WAKEUP_SOURCES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        <label>Badge
          <select name="badge" value={filters.badge} onChange={(e) => setFilter('badge', e.target.value)}>
            <option value="">Any badge</option>
            {WAKEUP_BADGE_LABELS.map((label) => <option key={label} value={label}>{label}</option>)}
          </select>
        </label>
        {filters.id && <button type="button" onClick={() => setFilter('id', '')}>Showing {filters.id}: show all</button>}
      </form>
      <ErrorBox error={wakeups.error} />
      {wakeups.data === undefined ? <Loading what="wakeups" /> : rows.length === 0 ? <Empty>No wakeups match.</Empty> : (
        <table className="list" aria-label="Wakeups">
          <thead><tr><th>Requested</th><th>Agent</th><th>Source</th><th>Status</th><th>Why</th><th>Run</th></tr></thead>
          <tbody>
            {rows.map((w) => (
              <tr key={w.id} data-wakeup-id={w.id} data-status={w.status}>
                <td><Time at={w.requested_at} /></td>
                <td><Link to={`/office/agents/${w.agent_id}`}>{agentName(w.agent_id)}</Link></td>
                <td>{w.source}{w.coalesced_count > 1 && <span className="hint"> +{w.coalesced_count - 1} merged</span>}</td>
                <td className="badges">{wakeupBadges(w).map((b) => <Badge key={b.label} tone={b.tone}>{b.label}</Badge>)}{w.retry_count > 0 && <span className="hint"> retry {w.retry_count}</span>}</td>
                <td className="explain">{w.explain}{w.task_id && <> · <Link to={`/office/tasks/${w.task_id}`}>task</Link></>}</td>
                <td>{w.run_id ? <Link to={`/office/runs/${w.run_id}`}>{w.run_id.slice(0, 12)}…</Link> : <span className="muted">-</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
