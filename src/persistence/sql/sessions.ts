import type { Session } from '../../domain/sessions.js';
import type { SessionRepo } from '../store.js';
import type { Dialect, RowTable, SqlRunner } from './dialect.js';
import { SESSIONS } from '../tables.js';

/** Sign-in sessions, on both backends. */
export class SessionsSql implements SessionRepo {
  private readonly table: RowTable<Session>;
  private readonly sql: SqlRunner;
  constructor(dialect: Dialect) {
    this.sql = dialect.sql;
    this.table = dialect.table(SESSIONS);
  }
  async insert(session: Session) {
    await this.table.insert(session);
  }
  async live(secretHash: string, now: number) {
    return this.table.one('SELECT * FROM sessions WHERE secret_hash = ? AND expires_at > ?', [secretHash, now]);
  }
  async remove(id: string) {
    await this.sql.run('DELETE FROM sessions WHERE id = ?', [id]);
  }
  async removeForToken(tokenId: string) {
    return (await this.sql.run('DELETE FROM sessions WHERE token_id = ?', [tokenId])).changes;
  }
  async removeExpired(now: number) {
    return (await this.sql.run('DELETE FROM sessions WHERE expires_at <= ?', [now])).changes;
  }
}
