import { lazy, Suspense, useState } from 'react';
import { RUN_STATUSES } from '../../../src/domain/types.js';
import { browserZone, elapsed, formatTime, shortId } from '../format';
import { query, useApi, useNow } from '../hooks';
import { Link, navigate, useLocation } from '../router';
import type { Agent, Run, Usage } from '../types';
import { RunTranscript } from './RunTranscript';
import { Empty, ErrorBox, FilterSelect, ApiSentence, Json, Loading, ShortId, StatusBadge, Tabs, Time } from '../ui';
import { useWorkspace } from '../workspace';
import { StopRunButton } from '../stopRun';

/** The charts (and recharts with them) load with the first page that shows them. */
const RunCharts = lazy(() => import('../chart/RunCharts').then((module) => ({ default: module.RunCharts })));

export function RunsPage() {
  const { workspace } = useWorkspace();
  const { search } = useLocation();
  const now = useNow();
  const filters = { agent_id: search.get('agent_id') ?? '', status: search.get('status') ?? '' };
  const setFilter = (key: keyof typeof filters, value: string) => navigate(`/office/runs${query({ ...filters, [key]: value })}`, { replace: true });
  const agents = useApi<Agent[]>(workspace ? `/api/office/agents${query({ workspace_id: workspace.id })}` : null);
  const runs = useApi<Run[]>(`/api/office/runs${query({ agent_id: filters.agent_id, status: filters.status, limit: 200 })}`);
  const agentName = (id: string) => agents.data?.find((a) => a.id === id)?.name ?? id;
  const rows = (runs.data ?? []).filter((run) => !workspace || run.workspace_id === workspace.id);

  return (
    <section>
      <header className="page-head"><h1>Runs</h1></header>
      {workspace && <Suspense fallback={<Loading what="charts" />}><RunCharts workspaceId={workspace.id} /></Suspense>}
      <form className="filters" aria-label="Filter runs" onSubmit={(e) => e.preventDefault()}>
        <FilterSelect label="Agent" name="agent_id" value={filters.agent_id} any="All agents"
          options={agents.data?.map((a) => ({ value: a.id, label: a.name }))} onChange={(v) => setFilter('agent_id', v)} />
        <FilterSelect label="Status" name="status" value={filters.status} any="Any status" options={RUN_STATUSES} onChange={(v) => setFilter('status', v)} />
      </form>
      <ErrorBox error={runs.error} />
      {runs.data === undefined ? <Loading what="runs" /> : rows.length === 0 ? <Empty>No runs yet.</Empty> : (
        <table className="list" aria-label="Runs">
          <thead><tr><th>Run</th><th>Agent</th><th>Status</th><th>Started</th><th>Duration</th><th>Attempt</th><th>Cost</th><th>Summary</th></tr></thead>
          <tbody>
            {rows.map((run) => (
              <tr key={run.id} data-run-id={run.id} data-status={run.status}>
                <td><Link to={`/office/runs/${run.id}`} title={run.id}>{shortId(run.id)}</Link></td>
                <td><Link to={`/office/agents/${run.agent_id}`}>{agentName(run.agent_id)}</Link></td>
                <td><StatusBadge status={run.status} /> <StopRunButton run={run} compact /></td>
                <td><Time at={run.started_at ?? run.created_at} /></td>
                <td>{elapsed(run.started_at, run.finished_at, now)}</td>
                <td>{run.attempt}</td>
                <td title={run.cost_note ?? undefined}>{formatCost(run.cost_usd)}</td>
                <td className="explain">{typeof run.result_json?.summary === 'string' ? run.result_json.summary : run.error ? <span className="bad"><ApiSentence text={run.error.split('\n')[0]!} /></span> : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

type RunTab = 'transcript' | 'result' | 'prompt' | 'context';

function formatUsage(usage: Usage | null | undefined): string {
  if (!usage) return '-';
  return `${usage.input_tokens.toLocaleString()} in (${usage.cached_input_tokens.toLocaleString()} cached) · ${usage.output_tokens.toLocaleString()} out`;
}

/** A cost to four decimals, or two significant digits below a cent (a short run costs a hundredth of one). */
export function formatCost(cost: number | null | undefined): string {
  if (cost === null || cost === undefined) return '-';
  return cost > 0 && cost < 0.01 ? `$${cost.toPrecision(2)}` : `$${cost.toFixed(4)}`;
}

export function RunDetailPage(props: { id: string }) {
  const run = useApi<Run>(`/api/office/runs/${props.id}`);
  const agent = useApi<Agent>(run.data ? `/api/office/agents/${run.data.agent_id}` : null, { live: false });
  const now = useNow();
  const [tab, setTab] = useState<RunTab>('transcript');
  if (run.error && !run.data) return <ErrorBox error={run.error} />;
  if (!run.data) return <Loading what="run" />;
  const r = run.data;
  return (
    <section>
      <header className="page-head">
        <div>
          <p className="crumbs"><Link to="/office/runs">Runs</Link> /</p>
          <h1>Run <ShortId id={r.id} /> <StatusBadge status={r.status} /></h1>
        </div>
        <div className="actions"><StopRunButton run={r} /></div>
      </header>
      <div className="cards run-cards">
        <div className="card">
          <h2 className="label">Timing</h2>
          <dl>
            <dt>Created</dt><dd><time dateTime={r.created_at}>{formatTime(r.created_at)}</time></dd>
            <dt>Started</dt><dd><time dateTime={r.started_at ?? undefined}>{formatTime(r.started_at)}</time></dd>
            <dt>Finished</dt><dd><time dateTime={r.finished_at ?? undefined}>{formatTime(r.finished_at)}</time></dd>
            <dt>Zone</dt><dd className="hint">{browserZone()} (your time)</dd>
            <dt>Duration</dt><dd data-testid="run-duration">{elapsed(r.started_at, r.finished_at, now)}</dd>
          </dl>
        </div>
        <div className="card">
          <h2 className="label">Run</h2>
          <dl>
            <dt>Agent</dt><dd><Link to={`/office/agents/${r.agent_id}`}>{agent.data?.name ?? shortId(r.agent_id)}</Link></dd>
            <dt>Wakeup</dt><dd><Link to={`/office/wakeups?id=${r.wakeup_id}`} title={r.wakeup_id}>{shortId(r.wakeup_id)}</Link></dd>
            <dt>Task</dt><dd>{r.task_id ? <Link to={`/office/tasks/${r.task_id}`} title={r.task_id}>{shortId(r.task_id)}</Link> : 'taskless'}</dd>
            <dt>Routine</dt><dd>{r.routine_id ? <Link to={`/office/routines/${r.routine_id}`} title={r.routine_id}>{shortId(r.routine_id)}</Link> : '-'}</dd>
          </dl>
        </div>
        <div className="card">
          <h2 className="label">Execution</h2>
          <dl>
            <dt>Attempt</dt><dd>{r.attempt}</dd>
            <dt>Executor</dt><dd>{r.executor_kind ?? '-'}</dd>
            <dt>Cost</dt><dd data-testid="run-cost">{formatCost(r.cost_usd)}{r.cost_note && <span className="muted"> ({r.cost_note})</span>}</dd>
            <dt>Tokens</dt><dd data-testid="run-usage">{formatUsage(r.usage)}</dd>
            <dt title="The program's own session id: the next run of this agent on the task resumes it">Session</dt><dd>{r.cli_session_id ? <ShortId id={r.cli_session_id} /> : '-'}</dd>
          </dl>
        </div>
      </div>
      {r.error && (
        <>
          <h2>Error</h2>
          <pre className="json bad" aria-label="Error">{r.error}</pre>
        </>
      )}
      <Tabs<RunTab> tabs={[['transcript', 'Transcript'], ['result', 'Result'], ['prompt', 'Prompt'], ['context', 'Context']]} active={tab} onChange={setTab} />
      <div role="tabpanel" className="tabpanel">
        {tab === 'transcript' && <RunTranscript runId={r.id} running={r.status === 'running' || r.status === 'queued'} />}
        {tab === 'result' && <Json value={r.result_json} label="Result JSON" />}
        {tab === 'prompt' && (
          <>
            <h2 className="label">Assembled prompt</h2>
            <pre className="prose" aria-label="Assembled prompt">{r.assembled_prompt || '(empty)'}</pre>
            <h2 className="label">Injected summary</h2>
            {r.summary_injected ? <pre className="prose" aria-label="Injected summary">{r.summary_injected}</pre> : <p className="muted" aria-label="Injected summary">No continuation summary was injected into this run.</p>}
          </>
        )}
        {tab === 'context' && <Json value={r.context_snapshot} label="Context snapshot" />}
      </div>
    </section>
  );
}
