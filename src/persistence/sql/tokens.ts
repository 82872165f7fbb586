import type { ApiToken } from '../../domain/governance.js';
import type { Routine } from '../../domain/routines.js';
import type { TokenRepo } from '../store.js';
import type { Dialect, RowTable, SqlRunner } from './dialect.js';
import { API_TOKENS, ROUTINES } from '../tables.js';

/** API tokens, on both backends. */
export class TokensSql implements TokenRepo {
  private readonly table: RowTable<ApiToken>;
  private readonly routines: RowTable<Routine>;
  private readonly sql: SqlRunner;
  constructor(dialect: Dialect) {
    this.sql = dialect.sql;
    this.table = dialect.table(API_TOKENS);
    this.routines = dialect.table(ROUTINES);
  }
  async insert(token: ApiToken) {
    await this.table.insert(token);
  }
  async get(id: string) {
    return this.table.get(id);
  }
  async byHash(hash: string) {
    return this.table.one('SELECT * FROM api_tokens WHERE token_hash = ?', [hash]);
  }
  async list() {
    return this.table.many('SELECT * FROM api_tokens ORDER BY created_at, id');
  }
  async revoke(id: string, at: number) {
    return (await this.sql.run('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [at, id])).changes > 0;
  }
  async pauseRoutinesOwnedBy(ownerId: string, reason: string, at: number) {
    return this.routines.many(
      `UPDATE office_routines SET status = 'paused', paused_reason = @reason, updated_at = @at
        WHERE owner_id = @ownerId AND status = 'active' RETURNING *`, { ownerId, reason, at });
  }
}
