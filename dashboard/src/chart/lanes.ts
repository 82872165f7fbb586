/**
 * The timeline's rows: runs that overlap in time (max_concurrent_sessions above 1) go on separate
 * lanes, each run on the first lane free at its start, so no bar hides another.
 */
export interface Span {
  start: number;
  end: number;
}

export function assignLanes<T extends Span>(spans: readonly T[]): Array<T & { lane: number }> {
  const laneEnds: number[] = [];
  return [...spans].sort((a, b) => a.start - b.start).map((span) => {
    let lane = laneEnds.findIndex((end) => end <= span.start);
    if (lane === -1) lane = laneEnds.push(span.end) - 1;
    else laneEnds[lane] = span.end;
    return { ...span, lane };
  });
}
