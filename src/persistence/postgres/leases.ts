import { fencedBy as sharedFencedBy } from '../sql/dialect.js';
import { LeasesSql } from '../sql/leases.js';
import { POSTGRES_TEXT, postgresDialect } from './dialect.js';
import type { PgSql } from './sql.js';

/** The shared statements (../sql/leases.ts) on this backend's connection. */
export class PgLeases extends LeasesSql {
  constructor(sql: PgSql) { super(postgresDialect(sql)); }
}

/**
 * The fence as a condition of a statement acting on `agentColumn`'s agent: the lease is this
 * owner's, at this epoch, and has not expired at `@at`. Binds @owner, @epoch and @at. The lease row
 * is share-locked, so a take of the agent waits for the fenced statement's transaction, and a
 * fenced statement that waited for a take sees the new epoch and does nothing.
 */
export const fencedBy = (agentColumn: string): string => sharedFencedBy(POSTGRES_TEXT, agentColumn);
