/**
 * The Runs page's pictures of time, from GET /api/office/stats (counted by the database): wakeups
 * per minute by outcome over the last hour or day, stacked, and the cost per day over 30 days.
 */
import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { WAKEUP_OUTCOMES } from '../../../src/domain/stats.js';
import { usdTick } from '../format';
import { query, useApi, useClockStep } from '../hooks';
import type { Stats } from '../types';
import { ErrorBox, Loading, YourZoneHint } from '../ui';
import './charts.css';
import { COST_COLOR, OUTCOME_COLORS } from './colors';
import { formatClock, formatDay, wakeupsRange } from './time';

const MINUTE = 60_000;
const WINDOWS = { hour: 60 * MINUTE, day: 24 * 60 * MINUTE } as const;
type Span = keyof typeof WINDOWS;
/** A day of minutes is narrower than a pixel each: the bars of a minute that had wakeups get an outline this wide, so they show. */
const DAY_OUTLINE_PX = 1;
/** Room for the cost axis's longest label ("$0.0075", "$1250"): recharts does not measure its ticks, and a narrower axis cuts them. */
const COST_AXIS_PX = 64;

export function RunCharts(props: { workspaceId: string }) {
  return (
    <div className="chart-row">
      <WakeupsPerMinute workspaceId={props.workspaceId} />
      <CostPerDay workspaceId={props.workspaceId} />
    </div>
  );
}

function WakeupsPerMinute(props: { workspaceId: string }) {
  const [span, setSpan] = useState<Span>('hour');
  // The range moves on with the clock as each minute begins; the chart keeps the last one while the next loads.
  const now = useClockStep(MINUTE);
  const stats = useApi<Stats>(`/api/office/stats${query({ workspace_id: props.workspaceId, bucket: 'minute', ...wakeupsRange(now, WINDOWS[span]) })}`, { keepPrevious: true });
  const points = (stats.data?.wakeups ?? []).map((point) => ({ ...point, at: Date.parse(point.starts_at) }));
  const totals = Object.fromEntries(WAKEUP_OUTCOMES.map((outcome) => [outcome, points.reduce((sum, p) => sum + p[outcome], 0)]));
  return (
    <figure className="chart" data-testid="wakeups-chart" aria-label="Wakeups per minute by outcome"
      {...Object.fromEntries(WAKEUP_OUTCOMES.map((outcome) => [`data-total-${outcome}`, totals[outcome]]))}>
      <header>
        <h2>Wakeups per minute</h2>
        <YourZoneHint />
        <div className="segmented" role="group" aria-label="Wakeups window">
          {(Object.keys(WINDOWS) as Span[]).map((key) => (
            <button key={key} type="button" aria-pressed={span === key} onClick={() => setSpan(key)}>Last {key}</button>
          ))}
        </div>
      </header>
      <ErrorBox error={stats.error} />
      {stats.data === undefined ? <Loading what="wakeups" /> : (
        <ResponsiveContainer width="100%" height={220}>
          <BarChart data={points} barCategoryGap={0} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
            <CartesianGrid vertical={false} stroke="#e5e7eb" />
            <XAxis dataKey="at" tickFormatter={formatClock} interval={Math.max(0, Math.ceil(points.length / 8) - 1)} />
            <YAxis allowDecimals={false} />
            <Tooltip labelFormatter={(at) => formatClock(Number(at))} isAnimationActive={false} />
            <Legend itemSorter={null} />
            {WAKEUP_OUTCOMES.map((outcome) => (
              <Bar key={outcome} dataKey={outcome} name={outcome} stackId="outcomes" fill={OUTCOME_COLORS[outcome]}
                className={`series-${outcome}`}
                stroke={span === 'day' ? OUTCOME_COLORS[outcome] : undefined} strokeWidth={span === 'day' ? DAY_OUTLINE_PX : 0} isAnimationActive={false} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      )}
    </figure>
  );
}

function CostPerDay(props: { workspaceId: string }) {
  // The server's default range for days: the last 30, and today so far.
  const stats = useApi<Stats>(`/api/office/stats${query({ workspace_id: props.workspaceId, bucket: 'day' })}`);
  const points = (stats.data?.cost ?? []).map((point) => ({ ...point, at: Date.parse(point.starts_at) }));
  const total = points.reduce((sum, p) => sum + p.cost_usd, 0);
  return (
    <figure className="chart" data-testid="cost-chart" aria-label="Cost per day" data-total={total}>
      <header>
        <h2>Cost per day</h2>
        <span className="hint">last 30 days (UTC), ${total.toFixed(2)} in all</span>
      </header>
      <ErrorBox error={stats.error} />
      {stats.data === undefined ? <Loading what="costs" /> : (
        <ResponsiveContainer width="100%" height={220}>
          <BarChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid vertical={false} stroke="#e5e7eb" />
            <XAxis dataKey="at" tickFormatter={formatDay} minTickGap={16} />
            <YAxis tickFormatter={usdTick} width={COST_AXIS_PX} />
            <Tooltip labelFormatter={(at) => formatDay(Number(at))} formatter={(usd) => [`$${Number(usd).toFixed(4)}`, 'cost']} isAnimationActive={false} />
            <Bar dataKey="cost_usd" name="cost" fill={COST_COLOR} className="series-cost" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      )}
    </figure>
  );
}
