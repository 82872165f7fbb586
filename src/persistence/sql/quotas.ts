import type { Quota } from '../../domain/quotas.js';
import type { QuotaExhaustion, QuotaRepo } from '../store.js';
import { QUOTAS } from '../tables.js';
import type { Dialect, RowTable, SqlRunner } from './dialect.js';

/** Shared quotas, on both backends: each write is one statement whose guard is in it. */
export class QuotasSql implements QuotaRepo {
  private readonly table: RowTable<Quota>;
  private readonly sql: SqlRunner;
  constructor(private readonly dialect: Dialect) {
    this.sql = dialect.sql;
    this.table = dialect.table(QUOTAS);
  }

  /**
   * Records the reset, unless a later one is recorded already: two agents failing on one quota at
   * once leave the later reset, and the slots start again from 0 only for a new exhaustion.
   */
  async exhaust(e: QuotaExhaustion) {
    await this.sql.run(`INSERT INTO agent_quotas (key, kind, exhausted_until, release_at, reason, exhausted_by_run_id, holds, sharing, updated_at)
      VALUES (@key, @kind, @exhausted_until, @release_at, @reason, @run_id, 0, @sharing, @at)
      ON CONFLICT (key) DO UPDATE SET exhausted_until = excluded.exhausted_until, release_at = excluded.release_at,
        reason = excluded.reason, exhausted_by_run_id = excluded.exhausted_by_run_id, sharing = excluded.sharing, updated_at = excluded.updated_at,
        holds = CASE WHEN agent_quotas.release_at IS NOT NULL AND agent_quotas.release_at > @at THEN agent_quotas.holds ELSE 0 END
      WHERE agent_quotas.release_at IS NULL OR agent_quotas.release_at < excluded.release_at`, { ...e });
  }

  /** A release slot of a quota still exhausted at `at`, in one UPDATE … RETURNING; undefined once it was released. */
  async holdSlot(key: string, at: number) {
    const row = await this.sql.get<{ holds: number; release_at: number; sharing: number; exhausted_until: number; kind: string }>(
      `UPDATE agent_quotas SET holds = holds + 1 WHERE key = @key AND release_at > ${this.dialect.cast('@at', 'bigint')}
       RETURNING holds, release_at, sharing, exhausted_until, kind`, { key, at });
    return row && { slot: Number(row.holds), release_at: Number(row.release_at), sharing: Number(row.sharing), exhausted_until: Number(row.exhausted_until), kind: row.kind };
  }

  async announce(key: string, at: number) {
    return (await this.sql.run(`UPDATE agent_quotas SET announced_release_at = release_at
      WHERE key = @key AND release_at > ${this.dialect.cast('@at', 'bigint')}
        AND (announced_release_at IS NULL OR announced_release_at <= ${this.dialect.cast('@at', 'bigint')})`, { key, at })).changes > 0;
  }

  async warn(key: string, kind: string, warning: string, at: number) {
    await this.sql.run(`INSERT INTO agent_quotas (key, kind, warning, warned_at, updated_at) VALUES (@key, @kind, @warning, @at, @at)
      ON CONFLICT (key) DO UPDATE SET warning = excluded.warning, warned_at = excluded.warned_at, updated_at = excluded.updated_at`,
      { key, kind, warning, at });
  }

  async get(key: string) { return this.table.get(key); }

  async list(filter: { exhaustedAt?: number }) {
    if (filter.exhaustedAt === undefined) return this.table.many('SELECT * FROM agent_quotas ORDER BY key');
    return this.table.many(`SELECT * FROM agent_quotas WHERE release_at > ${this.dialect.cast('@at', 'bigint')} ORDER BY release_at, key`, { at: filter.exhaustedAt });
  }
}
