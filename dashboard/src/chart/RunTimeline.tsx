/**
 * An agent's runs over the last 24 hours (GET /api/office/stats/timeline), one bar per run from its
 * start to its end (now, while it runs), coloured by outcome. Hovering a bar shows the run; a click
 * opens it. Drawn by recharts: a vertical-layout bar chart whose bars are [start, end] ranges.
 */
import { Bar, BarChart, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis, type TooltipContentProps } from 'recharts';
import type { NameType, ValueType } from 'recharts/types/component/DefaultTooltipContent';
import { elapsed, formatTime, shortId } from '../format';
import { query, useApi } from '../hooks';
import { navigate } from '../router';
import type { RunStatus } from '../../../src/domain/types.js';
import type { Timeline } from '../types';
import { Empty, ErrorBox, Loading, YourZoneHint } from '../ui';
import './charts.css';
import { RUN_COLORS } from './colors';
import { assignLanes } from './lanes';
import { clockTicks, formatClock } from './time';

const LANE_PX = 22;
/** A run of a few seconds is a sliver of 24 hours: its bar is drawn at least this share of the range wide (about 4 px). */
const MIN_SHARE = 1 / 300;

type RunBar = Timeline['runs'][number] & { lane: number; start: number; end: number; span: [number, number] };

export function RunTimeline(props: { workspaceId: string; agentId: string }) {
  const timeline = useApi<Timeline>(`/api/office/stats/timeline${query({ workspace_id: props.workspaceId, agent_id: props.agentId })}`);
  if (timeline.error && !timeline.data) return <ErrorBox error={timeline.error} />;
  if (!timeline.data) return <Loading what="timeline" />;
  const from = Date.parse(timeline.data.from);
  const to = Date.parse(timeline.data.to);
  const bars = barsOf(timeline.data.runs, from, to);
  const lanes = Math.max(1, ...bars.map((bar) => bar.lane + 1));
  return (
    <figure className="chart timeline" data-testid="run-timeline" data-runs={bars.length} aria-label="Runs in the last 24 hours">
      {bars.length === 0 && <Empty>No runs in the last 24 hours.</Empty>}
      <ResponsiveContainer width="100%" height={lanes * LANE_PX + 36}>
        <BarChart layout="vertical" data={bars} margin={{ top: 6, right: 16, bottom: 0, left: 16 }}>
          <XAxis type="number" domain={[from, to]} ticks={clockTicks(from, to)} tickFormatter={formatClock} />
          <YAxis type="number" dataKey="lane" domain={[-0.5, lanes - 0.5]} reversed hide />
          <Tooltip content={RunTooltip} cursor={false} isAnimationActive={false} />
          <Bar dataKey="span" barSize={LANE_PX - 6} isAnimationActive={false} cursor="pointer"
            onClick={(item) => openRun((item as { payload?: RunBar }).payload)}>
            {bars.map((bar) => <Cell key={bar.id} fill={RUN_COLORS[bar.status as RunStatus]} data-run-id={bar.id} data-status={bar.status} />)}
          </Bar>
        </BarChart>
      </ResponsiveContainer>
      <figcaption className="legend">
        <YourZoneHint />
        {Object.entries(RUN_COLORS).map(([status, color]) => <span key={status}><i style={{ background: color }} />{status}</span>)}
      </figcaption>
    </figure>
  );
}

/**
 * Each run's bar, clipped to the range (the tooltip keeps its real times), at least MIN_SHARE of
 * it wide so that a run of seconds can be seen, hovered and clicked (kept inside the range, so a
 * run that just ended is not cut off at the right edge); lanes keep overlapping runs apart.
 */
function barsOf(runs: Timeline['runs'], from: number, to: number): RunBar[] {
  const least = (to - from) * MIN_SHARE;
  const spans = runs.map((run) => {
    const started = Math.max(from, Date.parse(run.started_at));
    const ended = Math.min(to, run.finished_at ? Date.parse(run.finished_at) : to);
    const start = Math.min(started, to - least);
    return { ...run, start, end: Math.max(ended, start + least) };
  });
  return assignLanes(spans).map((bar) => ({ ...bar, span: [bar.start, bar.end] }));
}

function openRun(bar: RunBar | undefined) {
  if (bar) navigate(`/office/runs/${bar.id}`);
}

function RunTooltip(props: TooltipContentProps<ValueType, NameType>) {
  const bar = props.active ? (props.payload?.[0]?.payload as RunBar | undefined) : undefined;
  if (!bar) return null;
  return (
    <div className="chart-tooltip" data-testid="timeline-tooltip">
      <strong title={bar.id}>{shortId(bar.id)}</strong> <span style={{ color: RUN_COLORS[bar.status as RunStatus] }}>{bar.status}</span>
      <div>started {formatTime(bar.started_at)}</div>
      <div>{bar.finished_at ? `took ${elapsed(bar.started_at, bar.finished_at, Date.now())}` : 'still running'}</div>
    </div>
  );
}
