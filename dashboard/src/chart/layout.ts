/**
 * Lays out a machine chart (src/machines/graph.ts) for SVG with dagre: states are nodes, compound
 * states are clusters around their children, ranked left to right along the transitions, with
 * the edges routed and their labels placed by dagre. The machine itself is the outer frame, and its
 * own transitions (they apply in every state) are listed in its header.
 */
import dagre from '@dagrejs/dagre';
import type { ChartState, ChartTransition, MachineChart } from '../../../src/machines/graph.js';

export interface Box {
  state: ChartState;
  x: number;
  y: number;
  w: number;
  h: number;
  /** Decides and moves on at once (has eventless transitions): drawn dashed. */
  transient: boolean;
}

export interface Curve {
  source: string;
  target: string;
  label: string;
  d: string;
  labelX: number;
  labelY: number;
  anchor: 'end' | 'middle';
}

export interface ChartLayout {
  width: number;
  height: number;
  boxes: Box[];
  curves: Curve[];
  /** Transitions handled on the machine itself (they apply in every state). */
  rootEvents: { label: string; target: string };
}

const CHAR_W = 7;
const LABEL_CHAR_W = 6.1;
const LEAF_H = 34;
const INVOKE_H = 14;
const PAD = 14;
const ROOT_HEADER_H = 56;

export function layoutChart(chart: MachineChart): ChartLayout {
  const graph = new dagre.graphlib.Graph({ compound: true, multigraph: true });
  // Wide node separation leaves room for a cluster's title above its first child.
  graph.setGraph({ rankdir: 'LR', ranksep: 48, nodesep: 34, edgesep: 12, marginx: PAD, marginy: PAD });
  graph.setDefaultEdgeLabel(() => ({}));
  const states = descendants(chart.root);
  for (const state of states) {
    graph.setNode(state.id, state.children.length > 0 ? {} : leafSize(state));
    const parent = parentOf(chart.root, state.id);
    if (parent && parent !== chart.root.id) graph.setParent(state.id, parent);
  }
  const byId = new Map(states.map((state) => [state.id, state]));
  const own = chart.transitions.filter((t) => t.source !== chart.root.id);
  for (const edge of groupByEnds(own)) {
    // dagre routes edges between leaves only: entering a compound state enters its initial child.
    const from = entryLeaf(byId, edge.source);
    const to = entryLeaf(byId, edge.target);
    graph.setEdge(from, to, { label: edge.label, width: edge.label.length * LABEL_CHAR_W + 6, height: 14, labelpos: 'c' }, `${edge.source}->${edge.target}`);
  }
  dagre.layout(graph);

  const rootEvents = chart.transitions.filter((t) => t.source === chart.root.id);
  const rootLabel = rootEvents.map((t) => t.label).join(' · ');
  const size = graph.graph();
  const width = Math.max(size.width ?? 0, (rootLabel.length + 28) * LABEL_CHAR_W + 2 * PAD);
  const height = (size.height ?? 0) + ROOT_HEADER_H;
  const transient = new Set(chart.transitions.filter((t) => t.kind === 'always').map((t) => t.source));
  const boxes: Box[] = [{ state: chart.root, x: 0, y: 0, w: width, h: height, transient: false }];
  for (const state of states) {
    const node = graph.node(state.id);
    boxes.push({ state, x: node.x - node.width / 2, y: node.y - node.height / 2 + ROOT_HEADER_H, w: node.width, h: node.height, transient: transient.has(state.id) });
  }
  const curves = graph.edges().map((e: { v: string; w: string; name?: string }): Curve => {
    const edge = graph.edge(e) as { label: string; points: { x: number; y: number }[]; x: number; y: number };
    const [source, target] = e.name!.split('->') as [string, string];
    return {
      source, target, label: edge.label, d: smoothPath(edge.points.map((p) => ({ x: p.x, y: p.y + ROOT_HEADER_H }))),
      labelX: edge.x, labelY: edge.y + ROOT_HEADER_H + 4, anchor: 'middle',
    };
  });
  return { width: width + 2, height: height + 2, boxes, curves, rootEvents: { label: rootLabel, target: rootEvents[0]?.target ?? '' } };
}

function leafSize(state: ChartState) {
  const label = Math.max(state.key.length, ...state.invokes.map((name) => name.length + 2)) * CHAR_W;
  return { width: Math.max(92, label + 28), height: LEAF_H + (state.invokes.length ? INVOKE_H : 0) };
}

function descendants(root: ChartState): ChartState[] {
  return root.children.flatMap((child) => [child, ...descendants(child)]);
}

function parentOf(root: ChartState, id: string): string | null {
  for (const child of root.children) {
    if (child.id === id) return root.id;
    const found = parentOf(child, id);
    if (found) return found;
  }
  return null;
}

/** The leaf a transition into `id` lands on: the state itself, or its initial child's, all the way down. */
function entryLeaf(byId: Map<string, ChartState>, id: string): string {
  const state = byId.get(id);
  if (!state || state.children.length === 0) return id;
  return entryLeaf(byId, state.initial ?? state.children[0]!.id);
}

/** One edge per (source, target), its events joined: a fan of parallel arrows reads worse. */
function groupByEnds(transitions: ChartTransition[]): { source: string; target: string; label: string }[] {
  const grouped = new Map<string, { source: string; target: string; labels: string[] }>();
  for (const t of transitions) {
    const key = `${t.source}->${t.target}`;
    const entry = grouped.get(key) ?? { source: t.source, target: t.target, labels: [] };
    if (!entry.labels.includes(t.label)) entry.labels.push(t.label);
    grouped.set(key, entry);
  }
  return [...grouped.values()].map((edge) => ({ source: edge.source, target: edge.target, label: edge.labels.join(', ') }));
}

/** A smooth path through dagre's bend points: straight to the first midpoint, then quadratic curves from midpoint to midpoint. */
function smoothPath(points: { x: number; y: number }[]): string {
  const [first, ...rest] = points;
  if (!first) return '';
  let d = `M${first.x},${first.y}`;
  for (let i = 0; i < rest.length - 1; i++) {
    const p = rest[i]!;
    const next = rest[i + 1]!;
    d += ` Q${p.x},${p.y} ${(p.x + next.x) / 2},${(p.y + next.y) / 2}`;
  }
  const last = rest.at(-1);
  return last ? `${d} L${last.x},${last.y}` : d;
}
