/**
 * A machine definition as plain data, for drawing: the state tree and every transition. It is
 * built from `xstate/graph`'s `toDirectedGraph`, which covers event transitions, and adds the
 * eventless (`always`) transitions that toDirectedGraph leaves out, because the agent machine
 * decides most of its states with them. Used by the dashboard's live chart and `npm run charts`.
 */
import type { AnyStateMachine } from 'xstate';
import { toDirectedGraph, type DirectedGraphNode } from 'xstate/graph';

export interface ChartState {
  /** Full id, e.g. `agent.active.working`. */
  id: string;
  /** Path below the machine, as `stateName` prints it: `active.working` (empty for the root). */
  path: string;
  key: string;
  kind: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  /** Id of the initial child, for compound states. */
  initial: string | null;
  /** Names of the actors this state invokes (its timers and promises). */
  invokes: string[];
  children: ChartState[];
}

export interface ChartTransition {
  source: string;
  target: string;
  /** What a reader needs: the event, `[guard]` for an eventless choice, `onDone(<actor>)`. */
  label: string;
  kind: 'event' | 'always' | 'done';
}

export interface MachineChart {
  id: string;
  root: ChartState;
  transitions: ChartTransition[];
}

interface StateNodeLike {
  id: string;
  key: string;
  type: ChartState['kind'];
  path: string[];
  initial?: { target?: Array<{ id: string }> } | undefined;
  invoke?: Array<{ src: unknown; id?: string }> | undefined;
  always?: Array<{ target?: Array<{ id: string }> | undefined; guard?: unknown }> | undefined;
}

export function machineChart(machine: AnyStateMachine): MachineChart {
  const graph = toDirectedGraph(machine);
  const transitions: ChartTransition[] = [];
  const root = visit(graph, transitions);
  return { id: graph.id, root, transitions };
}

function visit(node: DirectedGraphNode, transitions: ChartTransition[]): ChartState {
  const stateNode = node.stateNode as unknown as StateNodeLike;
  for (const edge of node.edges) {
    const done = /^xstate\.done\.actor\.(.+)$/.exec(edge.label.text);
    transitions.push({
      source: edge.source.id,
      target: edge.target.id,
      label: done ? `onDone(${done[1]})` : edge.label.text,
      kind: done ? 'done' : 'event',
    });
  }
  for (const always of stateNode.always ?? []) {
    for (const target of always.target ?? []) {
      const guard = guardName(always.guard);
      transitions.push({ source: stateNode.id, target: target.id, label: guard ? `[${guard}]` : '[else]', kind: 'always' });
    }
  }
  return {
    id: stateNode.id,
    path: stateNode.path.join('.'),
    key: stateNode.key,
    kind: stateNode.type,
    initial: stateNode.initial?.target?.[0]?.id ?? null,
    invokes: (stateNode.invoke ?? []).map((invoke) => (typeof invoke.src === 'string' ? invoke.src : invoke.id ?? 'actor')),
    children: node.children.map((child) => visit(child, transitions)),
  };
}

function guardName(guard: unknown): string | null {
  if (!guard) return null;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && 'type' in guard && typeof guard.type === 'string') return guard.type;
  return 'guard';
}

/** Every state in the tree, depth first. */
export function allStates(root: ChartState): ChartState[] {
  return [root, ...root.children.flatMap(allStates)];
}

/**
 * The states that are active for a `stateName` value such as `active.working`: the leaf and each
 * of its ancestors, as ids (`agent.active`, `agent.active.working`).
 */
export function activeStateIds(machineId: string, stateValue: string): string[] {
  const parts = stateValue.split('.').filter(Boolean);
  return parts.map((_, index) => [machineId, ...parts.slice(0, index + 1)].join('.'));
}

/**
 * Mermaid `stateDiagram-v2` source for a chart. State ids are their paths with `_` (mermaid ids
 * are global, and `idle` appears under several parents); each state is labelled with its key.
 * Transitions handled on the machine itself apply in every state, so they are drawn from each
 * top-level state. Transitions between the same two states share one arrow.
 */
export function toMermaid(chart: MachineChart): string {
  const byId = new Map(allStates(chart.root).map((state) => [state.id, state]));
  const mermaidId = (id: string) => {
    const state = byId.get(id);
    return state && state.path ? state.path.replaceAll('.', '_') : id;
  };
  const parentOf = (id: string) => id.slice(0, id.lastIndexOf('.'));

  // Expand machine-level transitions to one per top-level state, then merge labels per arrow.
  const expanded: ChartTransition[] = chart.transitions.flatMap((t) =>
    t.source === chart.root.id
      ? chart.root.children.filter((child) => child.id !== t.target).map((child) => ({ ...t, source: child.id }))
      : [t]);
  const arrows = new Map<string, { source: string; target: string; labels: string[] }>();
  for (const t of expanded) {
    const key = `${t.source}->${t.target}`;
    const arrow = arrows.get(key) ?? { source: t.source, target: t.target, labels: [] };
    if (!arrow.labels.includes(t.label)) arrow.labels.push(t.label);
    arrows.set(key, arrow);
  }
  // Each arrow is written inside the composite state that holds its source's parent.
  const arrowsIn = new Map<string, string[]>();
  for (const arrow of arrows.values()) {
    const scope = parentOf(arrow.source) || chart.root.id;
    const lines = arrowsIn.get(scope) ?? [];
    lines.push(`${mermaidId(arrow.source)} --> ${mermaidId(arrow.target)}: ${arrow.labels.join(', ').replaceAll(':', '#58;')}`);
    arrowsIn.set(scope, lines);
  }

  const lines = ['stateDiagram-v2'];
  const emit = (state: ChartState, indent: string) => {
    if (state.initial) lines.push(`${indent}[*] --> ${mermaidId(state.initial)}`);
    for (const child of state.children) {
      const id = mermaidId(child.id);
      if (child.children.length === 0) {
        lines.push(`${indent}state "${child.key}" as ${id}`);
        continue;
      }
      lines.push(`${indent}state "${child.key}" as ${id} {`);
      emit(child, `${indent}  `);
      lines.push(`${indent}}`);
    }
    for (const line of arrowsIn.get(state.id) ?? []) lines.push(`${indent}${line}`);
  };
  emit(chart.root, '  ');
  return lines.join('\n');
}
