import type { ContinuationSummary } from '../../domain/types.js';
import type { DomainEvent } from '../../events/types.js';
import type { OutboxRepo, SnapshotRepo, SummaryRepo } from '../store.js';
import type { Sql } from './sql.js';
import { Table } from './table.js';

export class SqliteSummaries implements SummaryRepo {
  private readonly table: Table<ContinuationSummary>;
  constructor(sql: Sql) {
    this.table = new Table(sql, 'agent_continuation_summaries',
      ['agent_profile_id', 'scope', 'content', 'content_tokens', 'updated_at', 'updated_by_run_id']);
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

export class SqliteSnapshots implements SnapshotRepo {
  constructor(private readonly sql: Sql) {}
  async save(entries: { actor_id: string; kind: string; snapshot: unknown }[], at: number) {
    for (const entry of entries) {
      this.sql.run(
        `INSERT INTO actor_snapshots (actor_id, kind, snapshot, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (actor_id) DO UPDATE SET snapshot = excluded.snapshot, updated_at = excluded.updated_at`,
        [entry.actor_id, entry.kind, JSON.stringify(entry.snapshot), at]);
    }
  }
  async get(actorId: string) {
    const row = this.sql.get<{ snapshot: string }>('SELECT snapshot FROM actor_snapshots WHERE actor_id = ?', [actorId]);
    return row ? JSON.parse(row.snapshot) : undefined;
  }
  async all(kind: string) {
    const rows = this.sql.all<{ actor_id: string; snapshot: string }>('SELECT actor_id, snapshot FROM actor_snapshots WHERE kind = ?', [kind]);
    return new Map(rows.map((row) => [row.actor_id, JSON.parse(row.snapshot) as unknown]));
  }
  async delete(actorId: string) { this.sql.run('DELETE FROM actor_snapshots WHERE actor_id = ?', [actorId]); }
}

export class SqliteOutbox implements OutboxRepo {
  constructor(private readonly sql: Sql) {}
  record(type: string, payload: unknown, at: number): number {
    return Number(this.sql.run('INSERT INTO event_outbox (type, payload, created_at) VALUES (?, ?, ?)',
      [type, JSON.stringify(payload), at]).lastInsertRowid);
  }
  async pending() {
    return this.sql.all<{ id: number; type: string; payload: string; created_at: number }>(
      'SELECT * FROM event_outbox WHERE parked_at IS NULL ORDER BY id').map((row) => ({
      id: row.id, type: row.type, payload: JSON.parse(row.payload), at: row.created_at,
    }) as DomainEvent);
  }
  async remove(ids: number[]) {
    for (const id of ids) this.sql.run('DELETE FROM event_outbox WHERE id = ?', [id]);
  }
  async park(id: number, error: string, at: number) {
    this.sql.run('UPDATE event_outbox SET parked_at = ?, parked_error = ? WHERE id = ?', [at, error, id]);
  }
}
