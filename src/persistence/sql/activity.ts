/** The activity log and the inbox, on both backends. */
import type { ActivityEntry, InboxItem, NewActivity } from '../../domain/types.js';
import type { ActivityFilter, ActivityRepo, InboxRepo } from '../store.js';
import { afterPosition, clampLimit, orderBy, whereClause } from './filters.js';
import { HISTORY_PAGE_SIZE, LISTS, MAX_PAGE_SIZE } from '../../domain/pagination.js';
import type { Dialect, RowTable, SqlRunner } from './dialect.js';
import { ACTIVITY, INBOX } from '../tables.js';
import { RESOLVED_INBOX_ITEMS_LISTED } from '../../domain/inbox.js';

export class ActivitySql implements ActivityRepo {
  private readonly table: RowTable<ActivityEntry>;
  private readonly sql: SqlRunner;
  constructor(dialect: Dialect) {
    this.sql = dialect.sql;
    this.table = dialect.table(ACTIVITY);
  }
  async insert(entry: NewActivity, at: number) {
    await this.table.insert({ actor_type: 'system', unattended: false, on_behalf_of: null, message: '', details: {}, ...entry, created_at: at } as ActivityEntry);
  }
  async countSince(workspaceId: string, code: string, since: number) {
    return (await this.sql.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM activity_log WHERE workspace_id = ? AND code = ? AND created_at >= ?', [workspaceId, code, since]))!.n;
  }

  async list(filter: ActivityFilter) {
    const { where, params } = afterPosition(whereClause(filter as Record<string, unknown>,
      { workspace_id: 'workspace_id', code: 'code', wakeup_id: 'wakeup_id', agent_id: 'agent_id', unattended: 'unattended' }),
    filter.after, LISTS.activity);
    return this.table.many(`SELECT * FROM activity_log ${where} ${orderBy(LISTS.activity)} LIMIT @limit`,
      { ...params, limit: clampLimit(filter.limit, HISTORY_PAGE_SIZE, MAX_PAGE_SIZE + 1) });
  }
}

export class InboxSql implements InboxRepo {
  private readonly table: RowTable<InboxItem>;
  private readonly sql: SqlRunner;
  constructor(dialect: Dialect) {
    this.sql = dialect.sql;
    this.table = dialect.table(INBOX);
  }
  async insert(item: InboxItem) { await this.table.insert(item); }
  async resolveByRef(refId: string) { await this.sql.run("UPDATE inbox_items SET status = 'resolved' WHERE ref_id = ? AND status = 'open'", [refId]); }
  async get(id: string) { return this.table.get(id); }
  async resolve(id: string) { return (await this.sql.run("UPDATE inbox_items SET status = 'resolved' WHERE id = ? AND status = 'open'", [id])).changes === 1; }
  /**
   * Every open item, and the newest resolved ones, newest first: two selects, so that no shared
   * limit lets resolved items crowd an open one out.
   */
  async list(workspaceId: string | undefined, status?: InboxItem['status']) {
    const scope = workspaceId === undefined ? '' : 'AND workspace_id = @workspace_id';
    const open = `SELECT * FROM inbox_items WHERE status = 'open' ${scope}`;
    const resolved = `SELECT * FROM (SELECT * FROM inbox_items WHERE status = 'resolved' ${scope}
      ORDER BY created_at DESC, id DESC LIMIT ${RESOLVED_INBOX_ITEMS_LISTED}) AS resolved`;
    const parts = status === 'open' ? [open] : status === 'resolved' ? [resolved] : [open, resolved];
    return this.table.many(`SELECT * FROM (${parts.join(' UNION ALL ')}) AS items ORDER BY created_at DESC, id DESC`,
      workspaceId === undefined ? {} : { workspace_id: workspaceId });
  }
}
