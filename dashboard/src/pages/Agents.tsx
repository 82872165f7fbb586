import { lazy, Suspense, useMemo, useState } from 'react';
import { agentMachine } from '../../../src/machines/agent.js';
import { machineChart } from '../../../src/machines/graph.js';
import { api, ApiError } from '../api';
import { StateChart } from '../chart/StateChart';
import { shortId, wakeupBadges } from '../format';
import { query, useApi } from '../hooks';
import { useLive } from '../live';
import { Link } from '../router';
import type { Agent, Routine, Run, Wakeup } from '../types';
import { Badge, Empty, ErrorBox, Loading, StatusBadge, Time } from '../ui';
import { useWorkspace } from '../workspace';

/** The timeline (and recharts with it) loads with the first page that shows it. */
const RunTimeline = lazy(() => import('../chart/RunTimeline').then((module) => ({ default: module.RunTimeline })));

export const COORDINATOR_EMPTY_STATE = 'This coordinator has no scheduled wake-ups. It will only fire on comments, errors, or manual triggers.';
const OPEN = new Set(['queued', 'claimed', 'scheduled_retry']);

export function AgentsPage() {
  const { workspace } = useWorkspace();
  const { actors } = useLive();
  const agents = useApi<Agent[]>(workspace ? `/api/office/agents${query({ workspace_id: workspace.id })}` : null);
  return (
    <section>
      <header className="page-head"><h1>Agents</h1></header>
      <ErrorBox error={agents.error} />
      {agents.data === undefined ? <Loading what="agents" /> : agents.data.length === 0 ? <Empty>No agents in this workspace.</Empty> : (
        <table className="list" aria-label="Agents">
          <thead><tr><th>Name</th><th>Role</th><th>Status</th><th>Actor state</th><th>Queued</th><th>Slots</th><th>Cooldown until</th></tr></thead>
          <tbody>
            {agents.data.map((agent) => {
              const actor = actors[agent.id] ?? agent.actor;
              return (
                <tr key={agent.id} data-agent-id={agent.id}>
                  <td><Link to={`/office/agents/${agent.id}`}>{agent.name}</Link></td>
                  <td>{agent.role}</td>
                  <td><StatusBadge status={agent.status} /></td>
                  <td><code>{actor?.state ?? '-'}</code></td>
                  <td>{actor?.queued ?? '-'}</td>
                  <td>{actor ? `${actor.running} / ${actor.max_concurrent_sessions}` : '-'}</td>
                  <td>
                    {actor?.cooldown_until ? <Time at={actor.cooldown_until} /> : '-'}
                    {actor?.quota_held_until && <> <Link to="/office/quotas"><Badge tone="warn" title="Its program's shared quota is exhausted">quota until <Time at={actor.quota_held_until} /></Badge></Link></>}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function AgentDetailPage(props: { id: string }) {
  const { actors } = useLive();
  const agent = useApi<Agent>(`/api/office/agents/${props.id}`);
  const routines = useApi<Routine[]>(agent.data ? `/api/office/routines${query({ workspace_id: agent.data.workspace_id })}` : null);
  const wakeups = useApi<Wakeup[]>(`/api/office/wakeups${query({ agent_id: props.id, limit: 50 })}`);
  const runs = useApi<Run[]>(`/api/office/runs${query({ agent_id: props.id, limit: 10 })}`);
  const chart = useMemo(() => machineChart(agentMachine), []);
  const [error, setError] = useState<ApiError | null>(null);

  if (agent.error && !agent.data) return <ErrorBox error={agent.error} />;
  if (!agent.data) return <Loading what="agent" />;
  const a = agent.data;
  const actor = actors[a.id] ?? a.actor;
  const isCoordinator = a.role === 'coordinator' || a.role === 'ceo';
  const scheduled = (routines.data ?? []).filter((r) =>
    r.assignee_agent_instance_id === a.id && r.status === 'active' && r.triggers.some((t) => t.kind === 'schedule' && t.enabled));
  const mine = (routines.data ?? []).filter((r) => r.assignee_agent_instance_id === a.id && r.status !== 'archived');
  const queue = (wakeups.data ?? []).filter((w) => OPEN.has(w.status));

  const act = async (method: string, path: string, body: unknown) => {
    setError(null);
    try {
      await api(method, path, body);
      agent.reload();
    } catch (e) {
      setError(e as ApiError);
    }
  };

  return (
    <section>
      <header className="page-head">
        <div>
          <p className="crumbs"><Link to="/office/agents">Agents</Link> /</p>
          <h1>{a.name} <Badge>{a.role}</Badge> <StatusBadge status={a.status} /></h1>
        </div>
        <div className="actions">
          {a.status === 'paused'
            ? <button type="button" onClick={() => void act('PATCH', `/api/office/agents/${a.id}`, { status: 'idle' })}>Resume</button>
            : <button type="button" onClick={() => void act('PATCH', `/api/office/agents/${a.id}`, { status: 'paused' })}>Pause</button>}
          <button type="button" className="primary" onClick={() => void act('POST', `/api/office/agents/${a.id}/wake`, { reason: 'woken from the dashboard' })}>Wake now</button>
        </div>
      </header>
      <ErrorBox error={error} />
      {isCoordinator && routines.data && scheduled.length === 0 && (
        <div className="banner" role="note" data-testid="coordinator-empty-state">
          {COORDINATOR_EMPTY_STATE} <Link to="/office/routines">Manage routines</Link>
        </div>
      )}
      {a.paused_reason && <div className="notice">Paused: {a.paused_reason}</div>}
      {a.warnings.length > 0 && <div className="notice">{a.warnings.join(' ')}</div>}

      <div className="cards">
        <div className="card"><h3>Status</h3><p className="big"><StatusBadge status={a.status} /></p><p className="hint">actor: <code data-testid="current-state">{actor?.state ?? 'not running'}</code></p></div>
        <div className="card"><h3>Queue</h3><p className="big" data-testid="queued">{actor?.queued ?? queue.length}</p><p className="hint">{actor?.next_available_at ? <>next available <Time at={actor.next_available_at} /></> : 'waiting wakeups'}</p></div>
        <div className="card"><h3>Slots</h3><p className="big" data-testid="slots">{actor ? `${actor.running} / ${actor.max_concurrent_sessions}` : `- / ${a.max_concurrent_sessions}`}</p><p className="hint">running / max concurrent sessions</p></div>
        <div className="card"><h3>Replica</h3><p className="big" data-testid="agent-replica">{a.actor?.replica ? <Link to="/office/replicas"><code className="replica-id">{a.actor.replica}</code></Link> : 'none'}</p><p className="hint">{a.actor?.replica ? 'runs its actor (holds its lease)' : 'no replica holds it yet'}</p></div>
        <div className="card"><h3>Cooldown</h3><p className="big">{actor?.cooldown_until ? <Time at={actor.cooldown_until} /> : 'none'}</p><p className="hint">{a.cooldown_sec}s after each session</p></div>
      </div>

      <h2>Runs in the last 24 hours</h2>
      <Suspense fallback={<Loading what="timeline" />}><RunTimeline workspaceId={a.workspace_id} agentId={a.id} /></Suspense>

      <div className="agent-grid">
        <div>
          <h2>Live state chart</h2>
          <p className="hint">The agent machine (src/machines/agent.ts), drawn from its definition. The highlighted state moves as the actor moves. Dashed states are transient: they decide and move on at once.</p>
          <div className="chart-wrap">
            <StateChart chart={chart} current={actor?.state ?? null} title="Agent" />
          </div>
        </div>
        <div>
          <h2>Queue</h2>
          {queue.length === 0 ? <Empty>Nothing waiting.</Empty> : (
            <ul className="plain">
              {queue.map((w) => (
                <li key={w.id}>{wakeupBadges(w).map((b) => <Badge key={b.label} tone={b.tone}>{b.label}</Badge>)} {w.source}: <span className="explain">{w.explain}</span></li>
              ))}
            </ul>
          )}
          <h2>Recent runs</h2>
          {runs.data === undefined ? <Loading /> : runs.data.length === 0 ? <Empty>No runs yet.</Empty> : (
            <ul className="plain">
              {runs.data.map((run) => (
                <li key={run.id}><Link to={`/office/runs/${run.id}`} title={run.id}>{shortId(run.id)}</Link> <StatusBadge status={run.status} /> <Time at={run.started_at ?? run.created_at} /></li>
              ))}
            </ul>
          )}
          <h2>Routines</h2>
          {mine.length === 0 ? <Empty>No routines target this agent.</Empty> : (
            <ul className="plain">{mine.map((r) => <li key={r.id}><Link to={`/office/routines/${r.id}`}>{r.name}</Link> <StatusBadge status={r.status} /></li>)}</ul>
          )}
        </div>
      </div>
    </section>
  );
}
