/**
 * A statement profile, for the bench (`npm run bench -- --sql`): how often each statement ran and
 * how long it took, and what the commits cost. The store is given one in its options
 * (StoreOptions.statementProfile) and hands it to its connections; without one, the connections pay
 * a single null check per statement and the store none at all.
 *
 * Statements are keyed by their text with its whitespace collapsed, whole: two statements that
 * differ after their first 80 characters are two rows, though their labels may read alike.
 */
export interface StatementStat {
  /** The statement's text, whitespace collapsed. */
  text: string;
  count: number;
  totalMs: number;
}

export class StatementProfile {
  private readonly byText = new Map<string, StatementStat>();
  /** The raw texts seen, each to its row: the normalising runs once per text, not per statement. */
  private readonly byRawText = new Map<string, StatementStat>();
  /** Every COMMIT that reached the database (a unit that ran no statement sends none on PostgreSQL). */
  commits = 0;
  commitMs = 0;
  /** Each COMMIT's time, in order: a mean hides the few long ones (a checkpoint inside a commit) that make a tail. */
  readonly commitTimes: number[] = [];
  /**
   * The commits that wrote: on SQLite those that appended WAL frames, on PostgreSQL those of write
   * units (a read unit's COMMIT writes nothing).
   */
  writingCommits = 0;
  /** SQLite: the WAL frames (pages) the commits appended; null where they are not measured (PostgreSQL, :memory:). */
  walFrames: number | null = null;
  /** SQLite: how many times the commits wrote each page (by its number), to tell what the pages were (the bench maps them to tables and indexes). */
  readonly pageWrites = new Map<number, number>();

  /** One statement that took `ms`, failed or not. */
  record(sql: string, ms: number): void {
    let stat = this.byRawText.get(sql);
    if (!stat) {
      const text = normaliseStatement(sql);
      stat = this.byText.get(text);
      if (!stat) {
        stat = { text, count: 0, totalMs: 0 };
        this.byText.set(text, stat);
      }
      this.byRawText.set(sql, stat);
    }
    stat.count++;
    stat.totalMs += ms;
  }

  /** One COMMIT that took `ms`; `walFrames` is what it appended to SQLite's WAL (null when unknown or not SQLite). */
  commit(ms: number, writing: boolean, walFrames: number | null = null): void {
    this.commits++;
    this.commitMs += ms;
    this.commitTimes.push(ms);
    if (writing) this.writingCommits++;
    if (walFrames !== null) this.walFrames = (this.walFrames ?? 0) + walFrames;
  }

  /** The pages one SQLite commit appended to the WAL, by number; null when they could not be read. */
  pagesWritten(pages: readonly number[] | null): void {
    for (const page of pages ?? []) this.pageWrites.set(page, (this.pageWrites.get(page) ?? 0) + 1);
  }

  /** Forgets everything so far: the start of a measured window. */
  reset(): void {
    this.byText.clear();
    this.byRawText.clear();
    this.commits = 0;
    this.commitMs = 0;
    this.commitTimes.length = 0;
    this.writingCommits = 0;
    this.walFrames = null;
    this.pageWrites.clear();
  }

  /** The statements, the most time first. */
  statements(): StatementStat[] {
    return [...this.byText.values()].map((stat) => ({ ...stat })).sort((a, b) => b.totalMs - a.totalMs || b.count - a.count);
  }

  /** How many statements were recorded, all texts together. */
  statementCount(): number {
    let count = 0;
    for (const stat of this.byText.values()) count += stat.count;
    return count;
  }
}

/** A statement's text with every run of whitespace made one space, and trimmed. */
export function normaliseStatement(sql: string): string {
  return sql.replace(/\s+/g, ' ').trim();
}
