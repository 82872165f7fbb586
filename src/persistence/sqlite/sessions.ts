import type { Session } from '../../domain/sessions.js';
import type { SessionRepo } from '../store.js';
import type { Sql } from './sql.js';
import { Table } from './table.js';
import { SESSIONS } from '../tables.js';

export class SqliteSessions implements SessionRepo {
  private readonly table: Table<Session>;
  constructor(private readonly sql: Sql) {
    this.table = new Table(sql, SESSIONS);
  }
  async insert(session: Session) {
    this.table.insert(session);
  }
  async live(secretHash: string, now: number) {
    return this.table.one('SELECT * FROM sessions WHERE secret_hash = ? AND expires_at > ?', [secretHash, now]);
  }
  async remove(id: string) {
    this.sql.run('DELETE FROM sessions WHERE id = ?', [id]);
  }
  async removeForToken(tokenId: string) {
    return this.sql.run('DELETE FROM sessions WHERE token_id = ?', [tokenId]).changes;
  }
  async removeExpired(now: number) {
    return this.sql.run('DELETE FROM sessions WHERE expires_at <= ?', [now]).changes;
  }
}
