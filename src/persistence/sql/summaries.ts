import type { ContinuationSummary } from '../../domain/types.js';
import type { SummaryRepo } from '../store.js';
import type { Dialect, RowTable } from './dialect.js';
import { SUMMARIES } from '../tables.js';

/** Continuation summaries, on both backends. */
export class SummariesSql implements SummaryRepo {
  private readonly table: RowTable<ContinuationSummary>;
  constructor(dialect: Dialect) {
    this.table = dialect.table(SUMMARIES);
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
