/**
 * The agent programs' shared quotas (GET /api/office/quotas?all=true): which are exhausted, until
 * when, and which agents wait for them; and the ones whose program warned that a limit is near.
 */
import { query, useApi } from '../hooks';
import { Link } from '../router';
import type { Agent, Quota } from '../types';
import { Badge, Empty, ErrorBox, Loading, ShortId, Time } from '../ui';
import { useWorkspace } from '../workspace';

export function QuotasPage() {
  const { workspace } = useWorkspace();
  const quotas = useApi<Quota[]>('/api/office/quotas?all=true');
  const agents = useApi<Agent[]>(workspace ? `/api/office/agents${query({ workspace_id: workspace.id })}` : null);
  const nameOf = (id: string) => agents.data?.find((a) => a.id === id)?.name;
  return (
    <section>
      <header className="page-head"><h1>Quotas</h1></header>
      <p className="hint">
        When a Claude Code, Codex or Gemini CLI session hits its plan's limit and says when it resets, every agent whose sessions use the
        same credential waits for that reset, with no retry spent, and they start after it a few seconds apart.
      </p>
      <ErrorBox error={quotas.error} />
      {quotas.data === undefined ? <Loading what="quotas" /> : quotas.data.length === 0 ? <Empty>No quota has been exhausted or warned.</Empty> : (
        <table className="list" aria-label="Quotas">
          <thead><tr><th>Quota</th><th>State</th><th>Resets</th><th>Agents held</th><th>Why</th></tr></thead>
          <tbody>
            {quotas.data.map((quota) => (
              <tr key={quota.key} data-quota-key={quota.key}>
                <td><code>{quota.key}</code></td>
                <td>{quota.exhausted_until ? <Badge tone="bad">exhausted</Badge> : quota.warning ? <Badge tone="warn">near its limit</Badge> : <Badge>released</Badge>}</td>
                <td>{quota.exhausted_until ? <Time at={quota.exhausted_until} /> : '-'}</td>
                <td>
                  {quota.agents.length === 0 ? '-' : quota.agents.map((id) => (
                    <span key={id}>{nameOf(id) ? <Link to={`/office/agents/${id}`}>{nameOf(id)}</Link> : <ShortId id={id} />} </span>
                  ))}
                </td>
                <td className="explain">{quota.reason ?? quota.warning ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
