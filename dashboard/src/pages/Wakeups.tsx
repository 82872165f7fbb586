import { WAKEUP_STATUSES } from '../../../src/domain/types.js';
import { WAKEUP_SOURCES } from '../../../src/domain/wakeupSources.js';
import { WAKEUP_BADGE_LABELS, wakeupBadges } from '../format';
import { query, useApi } from '../hooks';
import { Link, navigate, useLocation } from '../router';
import type { Agent, Wakeup } from '../types';
import { shortId } from '../format';
import { Badge, Empty, ErrorBox, FilterSelect, ApiSentence, Loading, Time } from '../ui';
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
        <FilterSelect label="Agent" name="agent_id" value={filters.agent_id} any="All agents"
          options={agents.data?.map((a) => ({ value: a.id, label: a.name }))} onChange={(v) => setFilter('agent_id', v)} />
        <FilterSelect label="Status" name="status" value={filters.status} any="Any status" options={WAKEUP_STATUSES} onChange={(v) => setFilter('status', v)} />
        <FilterSelect label="Source" name="source" value={filters.source} any="Any source" options={WAKEUP_SOURCES} onChange={(v) => setFilter('source', v)} />
        <FilterSelect label="Badge" name="badge" value={filters.badge} any="Any badge" options={WAKEUP_BADGE_LABELS} onChange={(v) => setFilter('badge', v)} />
        {filters.id && <button type="button" onClick={() => setFilter('id', '')} title={filters.id}>Showing {shortId(filters.id)}: show all</button>}
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
                <td className="explain"><ApiSentence text={w.explain} />{w.task_id && <> · <Link to={`/office/tasks/${w.task_id}`}>task</Link></>}</td>
                <td>{w.run_id ? <Link to={`/office/runs/${w.run_id}`} title={w.run_id} className="nowrap">{shortId(w.run_id)}</Link> : <span className="muted">-</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
