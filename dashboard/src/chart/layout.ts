/**
 * Lays out a machine chart (src/machines/graph.ts) for SVG: compound states are boxes holding
 * their children in columns, ordered by distance from the initial child along the transitions
 * between them; transitions are curves from the right side of the source to the left side of
 * the target, or looping underneath when they go back. Small machines only; no layout library.
 */
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
const LEAF_H = 34;
const INVOKE_H = 14;
const HEADER_H = 26;
const PAD = 14;
const ROW_GAP = 14;
const COL_GAP = 120;
const ROOT_HEADER_H = 56;
const LABEL_CHAR_W = 6.1;

interface Sized {
  state: ChartState;
  w: number;
  h: number;
  /** Child offsets relative to this box. */
  children: Array<{ sized: Sized; dx: number; dy: number }>;
}

export function layoutChart(chart: MachineChart): ChartLayout {
  const childOf = directChildIndex(chart.root);
  const rootLabel = chart.transitions.filter((t) => t.source === chart.root.id).map((t) => t.label).join(' · ');
  const sized = size(chart.root, chart.transitions, childOf, true);
  // The machine-level events are listed in the root's header: make room for them.
  sized.w = Math.max(sized.w, (rootLabel.length + 28) * LABEL_CHAR_W + 2 * PAD);
  const boxes: Box[] = [];
  const transientIds = new Set(chart.transitions.filter((t) => t.kind === 'always').map((t) => t.source));
  const place = (s: Sized, x: number, y: number) => {
    boxes.push({ state: s.state, x, y, w: s.w, h: s.h, transient: transientIds.has(s.state.id) });
    for (const child of s.children) place(child.sized, x + child.dx, y + child.dy);
  };
  place(sized, 0, 0);
  const byId = new Map(boxes.map((box) => [box.state.id, box]));

  const grouped = new Map<string, { source: string; target: string; labels: string[] }>();
  const rootLabels: string[] = [];
  let rootTarget = '';
  for (const t of chart.transitions) {
    if (t.source === chart.root.id) {
      rootLabels.push(t.label);
      rootTarget = t.target;
      continue;
    }
    const key = `${t.source}->${t.target}`;
    const entry = grouped.get(key) ?? { source: t.source, target: t.target, labels: [] };
    if (!entry.labels.includes(t.label)) entry.labels.push(t.label);
    grouped.set(key, entry);
  }
  const curves: Array<Curve & { bottom: number }> = [];
  for (const edge of grouped.values()) {
    const from = byId.get(edge.source);
    const to = byId.get(edge.target);
    if (!from || !to) continue;
    curves.push({ source: edge.source, target: edge.target, label: edge.labels.join(', '), ...route(from, to) });
  }
  const bottom = Math.max(sized.h, ...curves.map((c) => c.bottom + PAD));
  boxes[0]!.h = bottom;
  return { width: sized.w + 2, height: bottom + 2, boxes, curves: curves.map(({ bottom: _, ...c }) => c), rootEvents: { label: rootLabels.join(' · '), target: rootTarget } };
}

/** Labels sit just before the arrowhead (forward) or under the loop (backward), so fans stay readable. */
function route(from: Box, to: Box): { d: string; labelX: number; labelY: number; anchor: 'end' | 'middle'; bottom: number } {
  if (to.x > from.x + from.w - 1) {
    // Forward: right side to left side.
    const [x1, y1] = [from.x + from.w, from.y + Math.min(from.h / 2, 17)];
    const [x2, y2] = [to.x, to.y + Math.min(to.h / 2, 17)];
    const bend = Math.max(30, (x2 - x1) / 2);
    return { d: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`, labelX: x2 - 10, labelY: y2 - 5, anchor: 'end', bottom: Math.max(y1, y2) };
  }
  // Backward (or stacked): leave from the bottom, loop underneath, enter from the bottom.
  const [x1, y1] = [from.x + from.w / 2, from.y + from.h];
  const [x2, y2] = [to.x + to.w / 2, to.y + to.h];
  const depth = Math.max(y1, y2) + 36;
  const p = bezier(0.5, x1, y1, x1, depth, x2, depth, x2, y2);
  return { d: `M${x1},${y1} C${x1},${depth} ${x2},${depth} ${x2},${y2}`, labelX: p.x, labelY: p.y + 16, anchor: 'middle', bottom: p.y + 20 };
}

function bezier(t: number, x0: number, y0: number, x1: number, y1: number, x2: number, y2: number, x3: number, y3: number) {
  const u = 1 - t;
  return {
    x: u * u * u * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t * t * t * x3,
    y: u * u * u * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t * t * t * y3,
  };
}

/** For every state id, the direct child of each ancestor that contains it. */
function directChildIndex(root: ChartState): Map<string, string[]> {
  const chains = new Map<string, string[]>();
  const walk = (state: ChartState, chain: string[]) => {
    chains.set(state.id, chain);
    for (const child of state.children) walk(child, [...chain, child.id]);
  };
  walk(root, [root.id]);
  return chains;
}

function size(state: ChartState, transitions: ChartTransition[], chains: Map<string, string[]>, isRoot = false): Sized {
  const label = Math.max(state.key.length, ...state.invokes.map((name) => name.length + 2)) * CHAR_W;
  if (state.children.length === 0) {
    return { state, w: Math.max(92, label + 28), h: LEAF_H + (state.invokes.length ? INVOKE_H : 0), children: [] };
  }
  const kids = state.children.map((child) => size(child, transitions, chains));
  const columns = columnsOf(state, transitions, chains);
  const columnCount = Math.max(...columns.values()) + 1;
  const colWidths = Array.from({ length: columnCount }, (_, c) => Math.max(0, ...kids.filter((k) => columns.get(k.state.id) === c).map((k) => k.w)));
  const top = isRoot ? ROOT_HEADER_H : HEADER_H;
  const placed: Sized['children'] = [];
  let x = PAD;
  let height = 0;
  for (let c = 0; c < columnCount; c++) {
    let y = top;
    for (const kid of kids.filter((k) => columns.get(k.state.id) === c)) {
      placed.push({ sized: kid, dx: x, dy: y });
      y += kid.h + ROW_GAP;
    }
    height = Math.max(height, y - ROW_GAP);
    x += colWidths[c]! + COL_GAP;
  }
  const width = Math.max(x - COL_GAP + PAD, label + 2 * PAD);
  return { state, w: width, h: height + PAD, children: placed };
}

/** Column of each direct child: breadth-first distance from the initial child. */
function columnsOf(state: ChartState, transitions: ChartTransition[], chains: Map<string, string[]>): Map<string, number> {
  const depth = chains.get(state.id)!.length;
  const lift = (id: string) => chains.get(id)?.[depth] ?? null;
  const next = new Map<string, Set<string>>();
  for (const t of transitions) {
    const from = lift(t.source);
    const to = lift(t.target);
    if (!from || !to || from === to || chains.get(t.source)!.length <= depth) continue;
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)!.add(to);
  }
  const columns = new Map<string, number>();
  const start = state.initial ?? state.children[0]!.id;
  columns.set(start, 0);
  const queue = [start];
  while (queue.length) {
    const id = queue.shift()!;
    for (const to of next.get(id) ?? []) {
      if (columns.has(to)) continue;
      columns.set(to, columns.get(id)! + 1);
      queue.push(to);
    }
  }
  const last = Math.max(...columns.values());
  for (const child of state.children) if (!columns.has(child.id)) columns.set(child.id, last + 1);
  return columns;
}
