import { describe, expect, it } from 'vitest';
import { layoutChart } from '../../dashboard/src/chart/layout.js';
import { agentMachine } from '../../src/machines/agent.js';
import { machineChart } from '../../src/machines/graph.js';

describe('the state chart laid out by dagre', () => {
  const layout = layoutChart(machineChart(agentMachine));
  const box = (id: string) => layout.boxes.find((b) => b.state.id === id)!;
  /** Where a curve's path ends (its last point). */
  const end = (d: string) => d.trim().split(/[\sMLQ]+/).filter(Boolean).at(-1)!.split(',').map(Number) as [number, number];

  it('draws a transition into a compound state to the child it enters first', () => {
    const intoActive = layout.curves.find((c) => c.source === 'agent.routing' && c.target === 'agent.active')!;
    expect(intoActive.label).toBe('[else]');
    const [x, y] = end(intoActive.d);
    const deciding = box('agent.active.deciding');
    expect(x).toBeGreaterThanOrEqual(deciding.x - 1);
    expect(x).toBeLessThanOrEqual(deciding.x + deciding.w + 1);
    expect(y).toBeGreaterThanOrEqual(deciding.y - 1);
    expect(y).toBeLessThanOrEqual(deciding.y + deciding.h + 1);
  });

  it('places every transition label off the states, inside the machine frame', () => {
    const leaves = layout.boxes.filter((b) => b.state.children.length === 0);
    for (const curve of layout.curves) {
      expect(curve.labelX).toBeGreaterThan(0);
      expect(curve.labelX).toBeLessThan(layout.width);
      for (const leaf of leaves) {
        const inside = curve.labelX > leaf.x && curve.labelX < leaf.x + leaf.w && curve.labelY > leaf.y && curve.labelY < leaf.y + leaf.h;
        expect(inside, `${curve.label} sits on ${leaf.state.id}`).toBe(false);
      }
    }
  });
});
