import type { ContinuationSummary } from '../../domain/types.js';
import type { SummaryRepo } from '../store.js';
import type { PgSql } from './sql.js';
import { PgTable } from './table.js';
import { SUMMARIES } from '../tables.js';

export class PgSummaries implements SummaryRepo {
  private readonly table: PgTable<ContinuationSummary>;
  constructor(sql: PgSql) {
    this.table = new PgTable(sql, SUMMARIES);
  }
  async get(agentId: string, scope: string) {
    return this.table.one('SELECT * FROM agent_continuation_summaries WHERE agent_profile_id = ? AND scope = ?', [agentId, scope]);
  }
  async upsert(summary: ContinuationSummary) {
    await this.table.insert(summary, { replaceOn: ['agent_profile_id', 'scope'] });
  }
  async listForAgent(agentId: string) {
    return this.table.many('SELECT * FROM agent_continuation_summaries WHERE agent_profile_id = ? ORDER BY scope', [agentId]);
  }
}
