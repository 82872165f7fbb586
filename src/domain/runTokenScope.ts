/**
 * What a run token may read (API.md, "Run token"): while its run is running, anything in its own
 * workspace except other agents' runs. The rule is applied to what a read returns, so a new read
 * route is covered without a rule of its own, and a record that carries no workspace is refused.
 */

export interface RunTokenScope {
  agentId: string;
  workspaceId: string;
}

/** How a route's records are judged: `records` carry `workspace_id`; `workspaces` are judged by id; `runs` also by agent. */
export type RecordKind = 'records' | 'workspaces' | 'runs';

export type ReadVerdict = { visible: true } | { visible: false; reason: string };

const VISIBLE: ReadVerdict = { visible: true };

export function runTokenMayRead(record: unknown, scope: RunTokenScope, kind: RecordKind): ReadVerdict {
  if (record === null || typeof record !== 'object') return { visible: false, reason: 'a run token may read only records of its own workspace' };
  const fields = record as { id?: unknown; workspace_id?: unknown; agent_id?: unknown };
  const workspaceId = kind === 'workspaces' ? fields.id : fields.workspace_id;
  if (workspaceId !== scope.workspaceId) return { visible: false, reason: 'a run token may read only its own workspace' };
  if (kind === 'runs' && fields.agent_id !== scope.agentId) return { visible: false, reason: "a run token may not read another agent's runs" };
  return VISIBLE;
}

/**
 * A list keeps only what the token may read (a filter reveals nothing); a single record it may
 * not read is refused with the reason.
 */
export function scopeReadForRunToken(payload: unknown, scope: RunTokenScope, kind: RecordKind): { payload: unknown } | { refused: string } {
  if (Array.isArray(payload)) return { payload: payload.filter((record) => runTokenMayRead(record, scope, kind).visible) };
  const verdict = runTokenMayRead(payload, scope, kind);
  return verdict.visible ? { payload } : { refused: verdict.reason };
}
