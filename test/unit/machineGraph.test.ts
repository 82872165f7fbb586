import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { layoutChart } from '../../dashboard/src/chart/layout.js';
import { renderCharts } from '../../scripts/charts.js';
import { agentMachine } from '../../src/machines/agent.js';
import { activeStateIds, allStates, machineChart, toMermaid } from '../../src/machines/graph.js';
import { triggerMachine } from '../../src/machines/trigger.js';

describe('machineChart', () => {
  const chart = machineChart(agentMachine);

  it('has every state of the agent machine, by the paths stateName prints', () => {
    expect(allStates(chart.root).map((s) => s.path).filter(Boolean)).toEqual([
      'routing', 'active', 'active.deciding', 'active.idle', 'active.working', 'active.atCapacity', 'active.coolingDown', 'active.heldByQuota', 'active.waiting',
      'paused', 'paused.draining', 'paused.idle', 'stopped', 'stopped.draining', 'stopped.idle',
    ]);
    const coolingDown = allStates(chart.root).find((s) => s.path === 'active.coolingDown')!;
    expect(coolingDown.invokes).toEqual(['sleepUntil']);
  });

  it('adds the eventless transitions that toDirectedGraph leaves out, in guard order', () => {
    const fromDeciding = chart.transitions.filter((t) => t.source === 'agent.active.deciding');
    expect(fromDeciding.map((t) => [t.label, t.target])).toEqual([
      ['[nothingToDo]', 'agent.active.idle'],
      ['[inboxEmpty]', 'agent.active.working'],
      ['[atCapacity]', 'agent.active.atCapacity'],
      ['[coolingDown]', 'agent.active.coolingDown'],
      ['[heldByQuota]', 'agent.active.heldByQuota'],
      ['[else]', 'agent.active.waiting'],
    ]);
    expect(chart.transitions.filter((t) => t.source === 'agent').map((t) => t.label)).toEqual([
      'WAKEUP_QUEUED', 'WAKEUP_WITHDRAWN', 'DISPATCH_ENDED', 'SETTINGS_CHANGED', 'RECONCILE', 'TIMER',
    ]);
  });

  it('names invoked-actor completions onDone(<id>)', () => {
    const trigger = machineChart(triggerMachine);
    expect(trigger.transitions).toContainEqual({ source: 'trigger.firing', target: 'trigger.routing', label: 'onDone(fire)', kind: 'done' });
  });

  it('maps a state value to the ids to highlight, leaf and ancestors', () => {
    expect(activeStateIds('agent', 'active.working')).toEqual(['agent.active', 'agent.active.working']);
    expect(activeStateIds('agent', 'routing')).toEqual(['agent.routing']);
  });
});

describe('toMermaid', () => {
  it('writes a stateDiagram-v2 with unique ids for states that share a name', () => {
    const text = toMermaid(machineChart(agentMachine));
    expect(text.split('\n')[0]).toBe('stateDiagram-v2');
    expect(text).toContain('state "idle" as active_idle');
    expect(text).toContain('state "idle" as paused_idle');
    expect(text).toContain('active_deciding --> active_idle: [nothingToDo]');
    expect(text).toContain('routing --> paused: [isPaused]');
    // Machine-level events apply in every state: one arrow from each top-level state.
    expect(text).toContain('paused --> routing: WAKEUP_QUEUED, WAKEUP_WITHDRAWN, DISPATCH_ENDED, SETTINGS_CHANGED, RECONCILE, TIMER');
    const braces = [...text].filter((c) => c === '{').length;
    expect(braces).toBe([...text].filter((c) => c === '}').length);
  });

  it('docs/*-machine.md are what `npm run charts` generates now', () => {
    for (const chart of renderCharts()) {
      expect(readFileSync(chart.path, 'utf8'), `${chart.path} is stale: run npm run charts`).toBe(chart.content);
    }
  });
});

describe('layoutChart (the dashboard chart)', () => {
  it.each([['agent', agentMachine], ['trigger', triggerMachine]] as const)('%s: children sit inside their parent and siblings never overlap', (_name, machine) => {
    const layout = layoutChart(machineChart(machine));
    const byId = new Map(layout.boxes.map((b) => [b.state.id, b]));
    for (const box of layout.boxes) {
      const siblings = box.state.children.map((c) => byId.get(c.id)!);
      for (const child of siblings) {
        expect(child.x).toBeGreaterThanOrEqual(box.x);
        expect(child.y).toBeGreaterThanOrEqual(box.y);
        expect(child.x + child.w).toBeLessThanOrEqual(box.x + box.w);
        expect(child.y + child.h).toBeLessThanOrEqual(box.y + box.h);
      }
      for (const a of siblings) {
        for (const b of siblings) {
          if (a === b) continue;
          const apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
          expect(apart, `${a.state.id} overlaps ${b.state.id}`).toBe(true);
        }
      }
    }
    expect(layout.curves.length).toBeGreaterThan(0);
  });
});
