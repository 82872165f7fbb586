/**
 * The API's shapes as the dashboard reads them: generated from the server's /openapi.json
 * (src/client/openapi.d.ts, `npm run api:types`), so they cannot drift from what the server sends.
 */
import type { components } from '../../src/client/openapi.js';

type Schemas = components['schemas'];

export type Workspace = Schemas['Workspace'];
export type ActorView = Schemas['AgentActor'];
export type Agent = Schemas['Agent'];
export type VariableDecl = Schemas['Routine']['variables'][number];
export type Trigger = Schemas['RoutineTrigger'];
export type RoutineRun = Schemas['RoutineRun'];
/** A routine as read (with `recent_runs`) or as listed (with `last_run`). */
export type Routine = Omit<Schemas['Routine'], 'recent_runs'> & { recent_runs?: RoutineRun[]; last_run?: RoutineRun | null };
export type Wakeup = Schemas['Wakeup'];
export type Run = Schemas['Run'];
export type Task = Schemas['Task'];

/** The live event stream's items (GET /api/office/stream, which the document leaves out: it is not JSON). */
export type FeedItem =
  | { kind: 'actor'; agent_id: string; view: ActorView }
  | { kind: 'wakeup'; wakeup_id: string; agent_id: string; status: Wakeup['status'] }
  | { kind: 'run'; run_id: string; agent_id: string; status: Run['status'] }
  | { kind: 'routine'; routine_id: string }
  | { kind: 'task'; task_id: string | null }
  | ({ kind: 'transcript'; run_id: string; agent_id: string; cut: boolean } & LiveTranscriptEvent)
  | { kind: 'quota'; key: string };
/** A transcript event as the stream carries it: `at` in epoch milliseconds, `text` cut when `cut`. */
export type LiveTranscriptEvent = Omit<TranscriptEvent, 'at'> & { at: number };
export type Comment = Schemas['Comment'];
export type Approval = Schemas['Approval'];
export type InboxItem = Schemas['InboxItem'];
export type ActivityEntry = Schemas['ActivityEntry'];
/** A budget as listed: with what its scope spent in the current period (GET /api/office/budgets). */
export type BudgetWithSpend = Schemas['BudgetWithSpend'];
/** The charts' numbers (GET /api/office/stats, /stats/timeline) and the replicas page's rows. */
export type Stats = Schemas['Stats'];
export type Timeline = Schemas['Timeline'];
export type Replica = Schemas['Replica'];
export type Transcript = Schemas['Transcript'];
export type TranscriptEvent = Schemas['TranscriptEvent'];
export type Quota = Schemas['Quota'];
export type Usage = Schemas['Usage'];
