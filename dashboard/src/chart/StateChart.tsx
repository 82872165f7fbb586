/**
 * A state chart drawn from the machine definition (xstate/graph via src/machines/graph.ts), with
 * the actor's current state and its ancestors highlighted. Pure SVG; nothing fetched.
 */
import { useMemo } from 'react';
import { activeStateIds, type MachineChart } from '../../../src/machines/graph.js';
import { layoutChart } from './layout';

export function StateChart(props: { chart: MachineChart; current: string | null; title?: string }) {
  const layout = useMemo(() => layoutChart(props.chart), [props.chart]);
  const active = new Set(props.current ? activeStateIds(props.chart.id, props.current) : []);
  const leafId = props.current ? `${props.chart.id}.${props.current}` : null;
  const rootTarget = layout.boxes.find((box) => box.state.id === layout.rootEvents.target);

  return (
    <svg className="statechart" viewBox={`-1 -1 ${layout.width + 2} ${layout.height + 2}`} width={layout.width} role="img"
      aria-label={`${props.title ?? props.chart.id} state chart${props.current ? `, current state ${props.current}` : ''}`} data-current={props.current ?? ''}>
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M0,0 L10,5 L0,10 z" className="arrowhead" />
        </marker>
      </defs>
      {layout.boxes.map((box) => {
        const isRoot = box.state.id === props.chart.id;
        const isLeafActive = box.state.id === leafId;
        const isActive = active.has(box.state.id);
        const compound = box.state.children.length > 0;
        return (
          <g key={box.state.id} className={`state${compound ? ' compound' : ''}${isActive ? ' active' : ''}${isLeafActive ? ' current' : ''}${box.transient ? ' transient' : ''}${isRoot ? ' root' : ''}`}
            data-state-path={box.state.path} data-active={isActive ? 'true' : 'false'}>
            <rect x={box.x} y={box.y} width={box.w} height={box.h} rx={compound ? 10 : 8} />
            {compound ? (
              <text x={box.x + 12} y={box.y + 18} className="title">{isRoot ? `${box.state.key} machine` : box.state.key}</text>
            ) : (
              <>
                <text x={box.x + box.w / 2} y={box.y + 21} textAnchor="middle" className="name">{box.state.key}</text>
                {box.state.invokes.length > 0 && (
                  <text x={box.x + box.w / 2} y={box.y + 36} textAnchor="middle" className="invoke">⟳ {box.state.invokes.join(', ')}</text>
                )}
              </>
            )}
          </g>
        );
      })}
      {rootTarget && layout.rootEvents.label && (
        <g className="root-events">
          <text x={rootTarget.x} y={36} className="edge-label">on {layout.rootEvents.label} (in any state) → {rootTarget.state.key}</text>
          <path d={`M${rootTarget.x + rootTarget.w / 2},40 L${rootTarget.x + rootTarget.w / 2},${rootTarget.y}`} markerEnd="url(#arrow)" className="edge" />
        </g>
      )}
      {layout.curves.map((curve) => (
        <g key={`${curve.source}->${curve.target}`} className={`transition${active.has(curve.source) && curve.source === leafId ? ' from-current' : ''}`}>
          <path d={curve.d} markerEnd="url(#arrow)" className="edge" />
          <text x={curve.labelX} y={curve.labelY} textAnchor={curve.anchor} className="edge-label">{curve.label}</text>
        </g>
      ))}
    </svg>
  );
}
