import type { TranscriptEntry, TranscriptRepo } from '../store.js';
import type { Dialect, SqlRunner } from './dialect.js';

/** What sessions printed, on both backends. */
export class TranscriptsSql implements TranscriptRepo {
  private readonly sql: SqlRunner;
  constructor(private readonly dialect: Dialect) {
    this.sql = dialect.sql;
  }

  /**
   * Appends the events (numbered by the caller, in order) and keeps the run's last `maxBytes`: the
   * oldest events go, and the run is marked truncated, in the same transaction. Three statements
   * per flush, whatever the number of events: one insert of a JSON array, one trim, one mark.
   */
  async append(runId: string, entries: readonly TranscriptEntry[], maxBytes: number, droppedBefore = false) {
    if (entries.length === 0) return;
    const { dialect } = this;
    const elements = dialect.jsonEach('@entries');
    await this.sql.run(`INSERT INTO run_transcript_events (run_id, seq, at, stream, type, text, bytes)
      SELECT @run_id, ${dialect.cast("(value ->> 'seq')", 'integer')}, ${dialect.cast("(value ->> 'at')", 'bigint')}, value ->> 'stream', value ->> 'type',
        value ->> 'text', ${dialect.cast("(value ->> 'bytes')", 'integer')} FROM ${elements}
      WHERE true ON CONFLICT DO NOTHING`, { run_id: runId, entries: JSON.stringify(entries) });
    // The newest events whose bytes, summed from the newest down, stay within maxBytes are kept.
    const trimmed = await this.sql.run(`DELETE FROM run_transcript_events WHERE run_id = @run_id AND seq <= COALESCE((
        SELECT MAX(seq) FROM (SELECT seq, SUM(bytes) OVER (ORDER BY seq DESC) AS kept FROM run_transcript_events WHERE run_id = @run_id) k
        WHERE k.kept > @max), -1)`, { run_id: runId, max: maxBytes });
    if (trimmed.changes > 0 || droppedBefore) await this.sql.run('UPDATE runs SET transcript_truncated = 1 WHERE id = @run_id AND transcript_truncated = 0', { run_id: runId });
  }

  async list(runId: string) {
    const rows = await this.sql.all<TranscriptEntry>(
      'SELECT seq, at, stream, type, text FROM run_transcript_events WHERE run_id = ? ORDER BY seq', [runId]);
    return rows.map((row) => ({ ...row, seq: Number(row.seq), at: Number(row.at) }));
  }
}
