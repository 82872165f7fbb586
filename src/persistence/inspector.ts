/**
 * A read-only look at the stored rows, for tests and diagnostics: the raw rows of a table that
 * match simple equality filters, and counts. It never writes, never decodes into domain types, and
 * reads only what has committed (its own connection). Every Store backend provides one, so a test
 * that checks the database checks it the same way on each (createInspector in createStore.ts).
 *
 * Table and column names are checked against the schema before any SQL is built; values are bound.
 */
export type RowFilter = Readonly<Record<string, string | number | boolean | null>>;

export interface InspectOptions {
  /** Columns to return; all when absent. */
  columns?: readonly string[];
  /** Ordered by this column, ascending; by the primary key when absent. */
  orderBy?: string;
}

export interface Inspector {
  /** Rows of `table` whose columns equal every value in `where` (null matches NULL), as stored. */
  rows<T = Record<string, unknown>>(table: string, where?: RowFilter, options?: InspectOptions): Promise<T[]>;
  /** How many rows of `table` match `where`. */
  count(table: string, where?: RowFilter): Promise<number>;
  /** The application's tables (not the backend's own). */
  tables(): Promise<string[]>;
  close(): Promise<void>;
}
