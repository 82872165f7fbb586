/**
 * The scheduler processes on the database (GET /api/office/replicas): each one's heartbeat and the
 * agents whose actor it runs. With SQLite there is one row, this process; with PostgreSQL, every
 * live replica. Which agents a replica runs comes from each agent's `actor.replica`
 * (the live stream's actor views do not carry it; the agents are read again on every change).
 */
import { useEffect } from 'react';
import { browserZone, formatInZone, replicaLost } from '../format';
import { query, useApi, useNow } from '../hooks';
import { Link } from '../router';
import type { Agent, Replica } from '../types';
import { Badge, Empty, ErrorBox, Loading, Time } from '../ui';
import { useWorkspace } from '../workspace';

export function ReplicasPage() {
  const { workspace } = useWorkspace();
  const replicas = useApi<Replica[]>('/api/office/replicas');
  const agents = useApi<Agent[]>(workspace ? `/api/office/agents${query({ workspace_id: workspace.id })}` : null);
  const now = useNow();
  useReadAgainWhenALostLeaseEnds(replicas.data, now, replicas.reload);
  const agentsOf = (replicaId: string) => (agents.data ?? []).filter((agent) => agent.actor?.replica === replicaId);
  return (
    <section>
      <header className="page-head"><h1>Replicas</h1></header>
      <p className="hint">Scheduler processes on this database. Each agent's actor runs on the one replica that holds its lease; on PostgreSQL, a replica heartbeats three times a lease, and one that misses two is shown <strong>lost</strong>: its agents move to the others when its lease runs out. With SQLite there is one process, which holds the database file and never heartbeats: its heartbeat is its start.</p>
      <ErrorBox error={replicas.error} />
      {replicas.data === undefined ? <Loading what="replicas" /> : replicas.data.length === 0 ? <Empty>No live replica.</Empty> : (
        <table className="list" aria-label="Replicas">
          <thead><tr><th>Replica</th><th>State</th><th>Started</th><th>Last heartbeat</th><th>Agents owned</th><th>Agents of this workspace</th></tr></thead>
          <tbody>
            {replicas.data.map((replica) => (
              <tr key={replica.id} data-replica-id={replica.id} data-lost={replicaLost(replica, now)}>
                <td><code>{replica.id}</code></td>
                <td data-testid="replica-state"><ReplicaState replica={replica} now={now} /></td>
                <td><Time at={replica.started_at} /></td>
                <td data-testid="heartbeat"><Time at={replica.heartbeat_at} /></td>
                <td data-testid="agents-owned">{replica.agents_owned}</td>
                <td>
                  {agentsOf(replica.id).map((agent, i) => (
                    <span key={agent.id}>{i > 0 && ', '}<Link to={`/office/agents/${agent.id}`}>{agent.name}</Link></span>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Nothing on the stream says a dead replica's registration ran out: the list is read again just after it does. */
function useReadAgainWhenALostLeaseEnds(replicas: Replica[] | undefined, now: number, reload: () => void): void {
  const ends = (replicas ?? []).filter((r) => replicaLost(r, now) && r.expires_at).map((r) => Date.parse(r.expires_at!)).sort((a, b) => a - b)[0];
  useEffect(() => {
    if (ends === undefined) return;
    // A little after the end, so that the server's clock has passed it too.
    const timer = window.setTimeout(reload, Math.max(0, ends - Date.now()) + 1000);
    return () => window.clearTimeout(timer);
  }, [ends, reload]);
}

/** A time in the browser's zone, named: the badge's title is plain text, with no <Time> in it. */
const yours = (iso: string | null) => formatInZone(iso, browserZone());

function ReplicaState(props: { replica: Replica; now: number }) {
  const { replica } = props;
  if (!replicaLost(replica, props.now)) return <Badge tone="good">live</Badge>;
  return (
    <Badge tone="bad" title={`No heartbeat since ${yours(replica.heartbeat_at)}; its lease runs out at ${yours(replica.expires_at)}, and its agents move then`}>
      lost, lease ends <Time at={replica.expires_at} />
    </Badge>
  );
}
