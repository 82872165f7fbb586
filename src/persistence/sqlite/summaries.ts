import type { ContinuationSummary } from '../../domain/types.js';
import type { SummaryRepo } from '../store.js';
import type { Sql } from './sql.js';
import { Table } from './table.js';
import { SUMMARIES } from '../tables.js';

export class SqliteSummaries implements SummaryRepo {
  private readonly table: Table<ContinuationSummary>;
  constructor(sql: Sql) {
    this.table = new Table(sql, SUMMARIES);
  }
  async get(agentId: string, scope: string) {
    return this.table.one('SELECT * FROM agent_continuation_summaries WHERE agent_profile_id = ? AND scope = ?', [agentId, scope]);
  }
  async upsert(summary: ContinuationSummary) {
    this.table.insert(summary, 'INSERT OR REPLACE');
  }
  async listForAgent(agentId: string) {
    return this.table.many('SELECT * FROM agent_continuation_summaries WHERE agent_profile_id = ? ORDER BY scope', [agentId]);
  }
}
