import { lazy, Suspense, useMemo, useState } from 'react';
import { agentMachine } from '../../../src/machines/agent.js';
import { machineChart } from '../../../src/machines/graph.js';
import { ApiError, call, office } from '../api';
import { StateChart } from '../chart/StateChart';
import { agentActivity, cooldownLeft, shortId, wakeupBadges } from '../format';
import { query, useApi, useNow } from '../hooks';
import { useLive } from '../live';
import { Link, navigate } from '../router';
import type { ActorView, Agent, Routine, Run, Wakeup, Workspace } from '../types';
import { Badge, ConfirmDialog, Empty, ErrorBox, ApiSentence, Loading, Modal, ShortId, StatusBadge, Time } from '../ui';
import { useWorkspace } from '../workspace';
import { AgentForm } from './AgentForm';

/** The timeline (and recharts with it) loads with the first page that shows it. */
const RunTimeline = lazy(() => import('../chart/RunTimeline').then((module) => ({ default: module.RunTimeline })));

export const COORDINATOR_EMPTY_STATE = 'This coordinator has no scheduled wake-ups. It will only fire on comments, errors, or manual triggers.';
const OPEN = new Set(['queued', 'claimed', 'scheduled_retry']);

export function AgentsPage() {
  const { workspace } = useWorkspace();
  const { actors } = useLive();
  const now = useNow();
  const agents = useApi<Agent[]>(workspace ? `/api/office/agents${query({ workspace_id: workspace.id })}` : null);
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<Agent | null>(null);
  const [deleting, setDeleting] = useState<Agent | null>(null);
  return (
    <section>
      <header className="page-head">
        <h1>Agents</h1>
        <button type="button" className="primary" onClick={() => setAdding(true)} disabled={!workspace}>Add an agent</button>
      </header>
      <ErrorBox error={agents.error} />
      {agents.data === undefined ? <Loading what="agents" /> : agents.data.length === 0 ? <Empty>No agents in this workspace.</Empty> : (
        <table className="list" aria-label="Agents">
          <thead><tr><th>Name</th><th>Role</th><th>Status</th><th>Actor state</th><th>Queued</th><th>Slots</th><th>Cooldown</th><th>Replica</th><th><span className="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {agents.data.map((agent) => {
              const actor = liveActor(actors[agent.id], agent.actor);
              return (
                <tr key={agent.id} data-agent-id={agent.id}>
                  <td><Link to={`/office/agents/${agent.id}`}>{agent.name}</Link></td>
                  <td>{agent.role}</td>
                  <td data-testid="agent-status"><ActivityBadge agent={agent} actor={actor} now={now} /></td>
                  <td><code>{actor?.state ?? '-'}</code></td>
                  <td>{actor?.queued ?? '-'}</td>
                  <td>{actor ? `${actor.running} / ${actor.max_concurrent_sessions}` : '-'}</td>
                  <td>
                    {cooldownLeft(actor?.cooldown_until, now) ?? <span className="muted">-</span>}
                    {actor?.quota_held_until && <> <Link to="/office/quotas"><Badge tone="warn" title="Its program's shared quota is exhausted">quota until <Time at={actor.quota_held_until} /></Badge></Link></>}
                  </td>
                  <td data-testid="agent-replica-cell">{actor?.replica ? <Link to="/office/replicas" className="plain-link"><ShortId id={actor.replica} /></Link> : <span className="muted">none</span>}</td>
                  <td className="row-actions">
                    <button type="button" className="link" onClick={() => setEditing(agent)}>Edit</button>
                    <button type="button" className="link danger" onClick={() => setDeleting(agent)}>Delete</button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {adding && workspace && (
        <Modal title="Add an agent" onClose={() => setAdding(false)}>
          <AgentForm workspace={workspace} onCancel={() => setAdding(false)} onSaved={() => setAdding(false)} />
        </Modal>
      )}
      {editing && workspace && <EditAgentDialog workspace={workspace} agent={editing} onClose={() => setEditing(null)} />}
      {deleting && <DeleteAgentDialog agent={deleting} onClose={() => setDeleting(null)} onDeleted={() => setDeleting(null)} />}
    </section>
  );
}

/** The stream's view of the actor where it has one; the replica comes from the API's (the stream does not carry it). */
function liveActor(streamed: ActorView | undefined, read: Agent['actor']): Agent['actor'] {
  if (!streamed) return read;
  return { ...streamed, replica: read?.replica ?? streamed.replica ?? null };
}

function ActivityBadge(props: { agent: Agent; actor: Agent['actor']; now: number }) {
  const activity = agentActivity(props.agent, props.actor, props.now);
  return <Badge tone={activity.tone} title={activity.title}>{activity.label}</Badge>;
}

function EditAgentDialog(props: { workspace: Workspace; agent: Agent; onClose: () => void }) {
  return (
    <Modal title={`Edit ${props.agent.name}`} onClose={props.onClose}>
      <AgentForm workspace={props.workspace} agent={props.agent} onCancel={props.onClose} onSaved={props.onClose} />
    </Modal>
  );
}

/** What deleting an agent does (API.md, "Deleting an agent"), asked first. */
function DeleteAgentDialog(props: { agent: Agent; onClose: () => void; onDeleted: () => void; onRequested?: (sent: boolean) => void }) {
  const remove = async () => {
    props.onRequested?.(true);
    try {
      return await call(office.DELETE('/api/office/agents/{id}', { params: { path: { id: props.agent.id } } }));
    } catch (error) {
      props.onRequested?.(false);
      throw error;
    }
  };
  return (
    <ConfirmDialog title={`Delete ${props.agent.name}?`} confirm="Delete agent" onClose={props.onClose} onDone={props.onDeleted}
      onConfirm={remove}>
      <p>Its queued wakeups are cancelled, its open tasks are unassigned and its routines are paused. Its runs and history stay.</p>
    </ConfirmDialog>
  );
}

export function AgentDetailPage(props: { id: string }) {
  const { actors } = useLive();
  // Deleting it from here: while the DELETE is out, the stream's news of the deletion must not
  // refetch the agent, and once it is gone nothing is fetched for it; either would be a 404.
  const [removal, setRemoval] = useState<'none' | 'requested' | 'done'>('none');
  const agent = useApi<Agent>(removal === 'done' ? null : `/api/office/agents/${props.id}`, { live: removal === 'none' });
  const routines = useApi<Routine[]>(agent.data ? `/api/office/routines${query({ workspace_id: agent.data.workspace_id })}` : null);
  const wakeups = useApi<Wakeup[]>(`/api/office/wakeups${query({ agent_id: props.id, limit: 50 })}`);
  const runs = useApi<Run[]>(`/api/office/runs${query({ agent_id: props.id, limit: 10 })}`);
  const chart = useMemo(() => machineChart(agentMachine), []);
  const [error, setError] = useState<ApiError | null>(null);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const { workspaces } = useWorkspace();
  const now = useNow();

  if (agent.error && !agent.data) return <ErrorBox error={agent.error} />;
  if (!agent.data) return <Loading what="agent" />;
  const a = agent.data;
  const actor = liveActor(actors[a.id], a.actor);
  const workspace = workspaces?.find((w) => w.id === a.workspace_id);
  const cooldown = cooldownLeft(actor?.cooldown_until, now);
  const isCoordinator = a.role === 'coordinator' || a.role === 'ceo';
  const scheduled = (routines.data ?? []).filter((r) =>
    r.assignee_agent_instance_id === a.id && r.status === 'active' && r.triggers.some((t) => t.kind === 'schedule' && t.enabled));
  const mine = (routines.data ?? []).filter((r) => r.assignee_agent_instance_id === a.id && r.status !== 'archived');
  const queue = (wakeups.data ?? []).filter((w) => OPEN.has(w.status));

  const act = async (request: () => Promise<unknown>) => {
    setError(null);
    try {
      await request();
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
          <h1>{a.name} <Badge>{a.role}</Badge> <ActivityBadge agent={a} actor={actor} now={now} /></h1>
        </div>
        <div className="actions">
          <button type="button" onClick={() => setEditing(true)} disabled={!workspace}>Edit</button>
          <button type="button" className="danger" onClick={() => setDeleting(true)}>Delete</button>
          {a.status === 'paused'
            ? <button type="button" onClick={() => void act(() => call(office.PATCH('/api/office/agents/{id}', { params: { path: { id: a.id } }, body: { status: 'idle' } })))}>Resume</button>
            : <button type="button" onClick={() => void act(() => call(office.PATCH('/api/office/agents/{id}', { params: { path: { id: a.id } }, body: { status: 'paused' } })))}>Pause</button>}
          <button type="button" className="primary" onClick={() => void act(() => call(office.POST('/api/office/agents/{id}/wake', { params: { path: { id: a.id } }, body: { reason: 'woken from the dashboard' } })))}>Wake now</button>
        </div>
      </header>
      <ErrorBox error={error} />
      {editing && workspace && <EditAgentDialog workspace={workspace} agent={a} onClose={() => setEditing(false)} />}
      {deleting && <DeleteAgentDialog agent={a} onClose={() => setDeleting(false)} onRequested={(sent) => setRemoval(sent ? 'requested' : 'none')}
        onDeleted={() => { setRemoval('done'); navigate('/office/agents'); }} />}
      {isCoordinator && routines.data && scheduled.length === 0 && (
        <div className="banner" role="note" data-testid="coordinator-empty-state">
          {COORDINATOR_EMPTY_STATE} <Link to="/office/routines">Manage routines</Link>
        </div>
      )}
      {a.paused_reason && <div className="notice">Paused: {a.paused_reason}</div>}
      {a.warnings.length > 0 && <div className="notice">{a.warnings.join(' ')}</div>}

      <div className="cards">
        <div className="card"><h2 className="label">Status</h2><p className="big"><ActivityBadge agent={a} actor={actor} now={now} /></p><p className="hint">{a.status} · actor: <code data-testid="current-state">{actor?.state ?? 'not running'}</code></p></div>
        <div className="card"><h2 className="label">Queue</h2><p className="big" data-testid="queued">{actor?.queued ?? queue.length}</p><p className="hint">{actor?.next_available_at ? <>next available <Time at={actor.next_available_at} /></> : 'waiting wakeups'}</p></div>
        <div className="card"><h2 className="label">Slots</h2><p className="big" data-testid="slots">{actor ? `${actor.running} / ${actor.max_concurrent_sessions}` : `- / ${a.max_concurrent_sessions}`}</p><p className="hint">running / max concurrent sessions</p></div>
        <div className="card"><h2 className="label">Replica</h2><p className="big" data-testid="agent-replica">{a.actor?.replica ? <Link to="/office/replicas"><code className="replica-id">{a.actor.replica}</code></Link> : 'none'}</p><p className="hint">{a.actor?.replica ? 'runs its actor (holds its lease)' : 'no replica holds it yet'}</p></div>
        <div className="card"><h2 className="label">Cooldown</h2><p className="big" data-testid="cooldown">{cooldown ?? 'none now'}</p><p className="hint">{a.cooldown_sec}s after each session</p></div>
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
                <li key={w.id}>{wakeupBadges(w).map((b) => <Badge key={b.label} tone={b.tone}>{b.label}</Badge>)} {w.source}: <span className="explain"><ApiSentence text={w.explain} /></span></li>
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
