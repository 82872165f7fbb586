import type { MissedTicks } from '../../domain/routines.js';
import { RoutinesSql } from '../sql/routines.js';
import { sqliteDialect } from './dialect.js';
import { parseJson } from '../shared/json.js';
import type { SqliteConnection } from './connection.js';

/**
 * The shared statements (../sql/routines.ts) on this backend's connection, and the missed-ticks
 * note, whose JSON SQLite reads and builds with its own functions (json_object, `->> '$.x'`, min).
 */
export class SqliteRoutines extends RoutinesSql {
  constructor(private readonly connection: SqliteConnection) { super(sqliteDialect(connection)); }

  async carryMissedTicks(id: string, note: MissedTicks) {
    this.connection.run(
      `UPDATE office_routines SET carried_missed_ticks = CASE WHEN carried_missed_ticks IS NULL
         THEN json_object('count', @count, 'since', @since)
         ELSE json_object('count', (carried_missed_ticks ->> '$.count') + @count, 'since', min(carried_missed_ticks ->> '$.since', @since)) END
       WHERE id = @id`, { id, count: note.count, since: note.since });
  }

  async takeCarriedMissedTicks(id: string) {
    // Read and cleared in one unit of work: SQLite's RETURNING shows only the new (cleared) value,
    // and cannot read the old row from an UPDATE's FROM (PostgreSQL's one statement).
    const carried = this.connection.get<{ note: string | null }>('SELECT carried_missed_ticks AS note FROM office_routines WHERE id = ?', [id])?.note;
    if (!carried) return null;
    this.connection.run('UPDATE office_routines SET carried_missed_ticks = NULL WHERE id = ?', [id]);
    return parseJson<MissedTicks | null>(carried, null);
  }
}
