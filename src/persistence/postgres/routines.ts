import type { MissedTicks } from '../../domain/routines.js';
import { RoutinesSql } from '../sql/routines.js';
import { parseJson } from '../shared/json.js';
import { postgresDialect } from './dialect.js';
import type { PgConnection } from './connection.js';

/**
 * The shared statements (../sql/routines.ts) on this backend's connection, and the missed-ticks
 * note, whose JSON (a text column) PostgreSQL reads and builds with its own functions
 * (json_build_object, `::jsonb ->> 'x'`, LEAST) and typed parameters.
 */
export class PgRoutines extends RoutinesSql {
  constructor(private readonly connection: PgConnection) { super(postgresDialect(connection)); }

  async carryMissedTicks(id: string, note: MissedTicks) {
    await this.connection.run(
      `UPDATE office_routines SET carried_missed_ticks = CASE WHEN carried_missed_ticks IS NULL
         THEN json_build_object('count', @count::integer, 'since', @since::bigint)::text
         ELSE json_build_object('count', (carried_missed_ticks::jsonb ->> 'count')::integer + @count::integer,
                                'since', LEAST((carried_missed_ticks::jsonb ->> 'since')::bigint, @since::bigint))::text END
       WHERE id = @id`, { id, count: note.count, since: note.since });
  }

  async takeCarriedMissedTicks(id: string) {
    // One statement: RETURNING reads the note as it was from the locked row it cleared (SQLite's
    // RETURNING cannot read an UPDATE's FROM: it reads, then clears).
    const carried = (await this.connection.get<{ note: string | null }>(
      `UPDATE office_routines r SET carried_missed_ticks = NULL
       FROM (SELECT id, carried_missed_ticks FROM office_routines WHERE id = ? FOR UPDATE) old
       WHERE r.id = old.id AND old.carried_missed_ticks IS NOT NULL
       RETURNING old.carried_missed_ticks AS note`, [id]))?.note;
    return carried ? parseJson<MissedTicks | null>(carried, null) : null;
  }
}
