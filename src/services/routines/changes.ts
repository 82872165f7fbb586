/**
 * What is told when a routine or its triggers change: the trigger actors start, move or stop
 * theirs, the other replicas hear of it, and open dashboards re-read it. The catalogue tells it
 * after an edit commits, and so do the outcomes when a routine pauses itself.
 */
/** What the trigger actors are told when a routine or trigger changes. */
export interface RoutineChangeListener {
  routineChanged(routineId: string): void;
}
