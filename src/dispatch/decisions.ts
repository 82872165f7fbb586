/**
 * How the dispatch records what it decided about a wakeup: one activity entry (and its log line
 * after commit) that names the wakeup, its agent, task and run, its provenance and its source.
 * The claim and prepare (prepare.ts) and the finish (finish.ts) both write theirs through here.
 */
import type { ActivityCode } from '../domain/activityCodes.js';
import { provenanceOf } from '../domain/provenance.js';
import type { Wakeup } from '../domain/types.js';
import type { Tx } from '../persistence/store.js';
import { recordDecision } from '../services/activity.js';
import type { PipelineContext } from './pipelineContext.js';

export function decide(
  ctx: PipelineContext, tx: Tx, wakeup: Wakeup, code: ActivityCode, message: string, now: number,
  details: Record<string, unknown> = {}, level: 'info' | 'warn' | 'error' = 'info',
) {
  return recordDecision(tx, ctx.log, {
    workspace_id: wakeup.workspace_id, code, agent_id: wakeup.agent_id, task_id: wakeup.task_id,
    wakeup_id: wakeup.id, run_id: wakeup.run_id, ...provenanceOf(wakeup), message, details: { source: wakeup.source, ...details },
  }, now, level);
}
