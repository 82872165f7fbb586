/**
 * `npm run bench -- --sql`: a statement profile of P2, P7 and P4's fires (SQLite) and P6a
 * (PostgreSQL) over each one's measured window, printed after the figures: each statement's count,
 * total and mean time (in the client: from the call to the answer) and share, then the commits,
 * their mean time, what they wrote and the statements per wakeup.
 *
 * What a commit wrote: on SQLite the WAL frames (pages) each commit appended, read from the
 * wal-index header in the -shm file around every commit (src/persistence/sqlite/walIndex.ts), exact;
 * on PostgreSQL the WAL bytes between pg_current_wal_lsn() read once before the window and once
 * after, over the whole server (nothing else runs on the bench's server then, autovacuum aside), per
 * commit. With pg_stat_statements loadable (the bench's embedded server preloads it under --sql),
 * the server's own view follows: execution time and WAL bytes per statement.
 *
 * The figures of a profiled run are measured with the profile attached: two clock reads and a map
 * lookup per statement, a read of the -shm header around each SQLite commit.
 */
import Database from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { StatementProfile, type StatementStat } from '../src/persistence/shared/statementProfile.js';
import { walPageSize } from '../src/persistence/sqlite/walIndex.js';
import { percentile } from './support.js';

let enabled = false;
const reports: SqlReport[] = [];

/** Turns profiling on for the suites that support it (run.ts, for `--sql`). */
export function enableSqlProfiling(): void {
  enabled = true;
}

/** Whether `--sql` was given: a suite in a process of its own is told so. */
export function sqlProfilingEnabled(): boolean {
  return enabled;
}

/** A profile for a suite to hand its scheduler when `--sql` was given; undefined otherwise. */
export function sqlProfileIfAsked(): StatementProfile | undefined {
  return enabled ? new StatementProfile() : undefined;
}

/** A statement as pg_stat_statements saw it on the server. */
interface ServerStatement {
  text: string;
  calls: number;
  totalMs: number;
  walBytes: number;
}

export interface SqlReport {
  id: string;
  backend: 'SQLite' | 'PostgreSQL';
  wakeups: number;
  windowMs: number;
  statements: StatementStat[];
  commits: number;
  commitMs: number;
  /** The commits' times, for their tail. */
  commitTimes: number[];
  writingCommits: number;
  /** SQLite: WAL frames the commits appended, and the page size. */
  walFrames: number | null;
  pageSize: number | null;
  /** SQLite: the pages the commits wrote, by table or index (most first). */
  pagesByTree: TreePages[] | null;
  /** PostgreSQL: WAL bytes written over the window (the whole server). */
  walBytes: number | null;
  /** PostgreSQL: pg_stat_statements over the window; null when it is not loaded. */
  server: ServerStatement[] | null;
  serverNote?: string;
}

/** A table or index (SQLite's b-tree name, as dbstat names it) and the pages of it the commits wrote. */
interface TreePages {
  name: string;
  pages: number;
}

/** A measured window: `reset` at its start, `end` at its end, which keeps the report to print. */
export function profileWindow(id: string, backend: SqlReport['backend'], profile: StatementProfile) {
  let started = 0;
  return {
    start() {
      profile.reset();
      started = performance.now();
    },
    /** Keeps the profile as it stands now; returns the kept report, for what is read after the window (the server's side). */
    end(wakeups: number, extra: Partial<Pick<SqlReport, 'pageSize' | 'pagesByTree' | 'walBytes' | 'server' | 'serverNote'>> = {}): SqlReport {
      const report: SqlReport = {
        id, backend, wakeups, windowMs: performance.now() - started, statements: profile.statements(),
        commits: profile.commits, commitMs: profile.commitMs, commitTimes: [...profile.commitTimes], writingCommits: profile.writingCommits, walFrames: profile.walFrames,
        pageSize: null, pagesByTree: null, walBytes: null, server: null, ...extra,
      };
      reports.push(report);
      return report;
    },
  };
}

/** What an SQLite window's report reads from the database file at its end: the page size and the written pages by table or index. */
export function sqliteWindowEnd(dbPath: string, profile: StatementProfile): Pick<SqlReport, 'pageSize' | 'pagesByTree'> {
  return { pageSize: walPageSize(dbPath), pagesByTree: pagesByTree(dbPath, profile.pageWrites) };
}

/**
 * The written pages (number to times written) by the table or index that holds each now, read
 * from dbstat on a connection of its own. A page that no b-tree holds at the end (freed, or on the
 * freelist) counts as "(free)".
 */
function pagesByTree(dbPath: string, pageWrites: ReadonlyMap<number, number>): TreePages[] | null {
  if (pageWrites.size === 0) return null;
  const db = new Database(dbPath, { readonly: true });
  try {
    const owner = new Map<number, string>();
    for (const row of db.prepare('SELECT name, pageno FROM dbstat').iterate() as Iterable<{ name: string; pageno: number }>) owner.set(row.pageno, row.name);
    const byTree = new Map<string, number>();
    for (const [page, writes] of pageWrites) {
      const name = owner.get(page) ?? '(free)';
      byTree.set(name, (byTree.get(name) ?? 0) + writes);
    }
    return [...byTree].map(([name, pages]) => ({ name, pages })).sort((a, b) => b.pages - a.pages);
  } finally {
    db.close();
  }
}

/**
 * The server's side of a PostgreSQL window, on a connection of its own: the WAL position at the
 * start, and pg_stat_statements reset when it is loaded. `end` reads both and closes the connection.
 */
export async function postgresServerWindow(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let serverNote: string | undefined;
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await client.query('SELECT pg_stat_statements_reset()');
  } catch (error) {
    serverNote = `pg_stat_statements unavailable (${(error as Error).message.split('\n')[0]})`;
  }
  const startLsn = (await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn() AS lsn')).rows[0]!.lsn;
  return {
    async end(): Promise<Pick<SqlReport, 'walBytes' | 'server' | 'serverNote'>> {
      try {
        const bytes = (await client.query<{ bytes: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS bytes', [startLsn])).rows[0]!.bytes;
        let server: ServerStatement[] | null = null;
        if (serverNote === undefined) {
          const { rows } = await client.query<{ query: string; calls: string; total: number; wal: string }>(
            `SELECT query, calls, total_exec_time AS total, wal_bytes AS wal FROM pg_stat_statements
             WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
               AND query NOT LIKE '%pg_wal_lsn_diff%' AND query NOT LIKE '%pg_current_wal_lsn%' AND query NOT LIKE '%pg_stat_statements%'`);
          server = rows.map((row) => ({ text: row.query.replace(/\s+/g, ' ').trim(), calls: Number(row.calls), totalMs: row.total, walBytes: Number(row.wal) }));
        }
        return { walBytes: Number(bytes), server, ...(serverNote ? { serverNote } : {}) };
      } finally {
        await client.end();
      }
    },
  };
}

const LABEL = 80;

function label(text: string): string {
  return text.length > LABEL ? `${text.slice(0, LABEL - 1)}…` : text;
}

function table(header: string[], rows: string[][], rightAligned: number): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i >= rightAligned ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

const ms = (value: number) => value.toFixed(1);
const us = (value: number) => (value * 1000).toFixed(1);
const pct = (part: number, whole: number) => (whole > 0 ? `${((part / whole) * 100).toFixed(1)}%` : '-');
const per = (value: number, count: number, digits = 2) => (count > 0 ? (value / count).toFixed(digits) : '-');

/** The commits' p50, p99 and longest, and what the commits over 10 ms took of all commit time. */
function commitTail(times: readonly number[]): string {
  if (times.length === 0) return '-';
  const total = times.reduce((sum, t) => sum + t, 0);
  const long = times.filter((t) => t > 10);
  return `p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms, longest ${times.reduce((max, t) => Math.max(max, t), 0).toFixed(1)} ms; `
    + `${long.length} over 10 ms, ${pct(long.reduce((sum, t) => sum + t, 0), total)} of commit time`;
}

/**
 * Wakeups per second if nothing but the window's statements ran, one after another: on SQLite's one
 * connection they never overlap, so no JavaScript, however cheap, lifts a figure above this. Null on
 * PostgreSQL, where pipelined statements and a pool overlap in the client's timing.
 */
export function statementCeiling(report: SqlReport): number | null {
  if (report.backend !== 'SQLite') return null;
  const totalMs = statementMs(report);
  return totalMs > 0 ? report.wakeups / (totalMs / 1000) : null;
}

/** The window's statements' summed time, in ms, as the client timed them. */
function statementMs(report: SqlReport): number {
  return report.statements.reduce((sum, stat) => sum + stat.totalMs, 0);
}

/** The reports kept so far, for a suite in a process of its own to hand to run.ts (P4). */
export function keptSqlReports(): readonly SqlReport[] {
  return reports;
}

/** Reports another process kept (keptSqlReports there), printed with this one's. */
export function keepSqlReports(more: readonly SqlReport[]): void {
  reports.push(...more);
}

/** Prints the profiles kept so far, one after another. */
export function printSqlProfiles(): void {
  for (const report of reports) {
    const total = statementMs(report);
    const count = report.statements.reduce((sum, stat) => sum + stat.count, 0);
    console.log(`\n${report.id} on ${report.backend}: statements in the measured window (${report.wakeups} wakeups, ${(report.windowMs / 1000).toFixed(2)} s), timed in the client`);
    const rows = report.statements.map((stat) => [label(stat.text), String(stat.count), ms(stat.totalMs), us(stat.totalMs / stat.count), pct(stat.totalMs, total)]);
    rows.push(['(all)', String(count), ms(total), us(count > 0 ? total / count : 0), pct(total, total)]);
    for (const line of table(['statement', 'count', 'total ms', 'mean µs', 'share'], rows, 1)) console.log(line);
    const lines = [
      `commits: ${report.commits} (${report.writingCommits} wrote), mean ${per(report.commitMs, report.commits, 3)} ms, ${per(report.commits, report.wakeups, 3)} per wakeup`,
      `commit times: ${commitTail(report.commitTimes)}`,
    ];
    if (report.walFrames !== null) {
      lines.push(`WAL pages per commit: ${per(report.walFrames, report.commits)} (${per(report.walFrames, report.writingCommits)} per commit that wrote; ${report.walFrames} pages of ${report.pageSize ?? '?'} bytes, from the -shm wal-index, exact)`);
    }
    if (report.walBytes !== null) {
      lines.push(`WAL bytes per commit: ${per(report.walBytes, report.commits, 0)} (${per(report.walBytes, report.writingCommits, 0)} per write commit; ${report.walBytes} bytes over the window, pg_current_wal_lsn before and after, whole server)`);
    }
    if (report.pagesByTree) {
      lines.push(`WAL pages by table or index (the page's owner at the window's end, dbstat), per wakeup: ${report.pagesByTree
        .map((tree) => `${tree.name} ${per(tree.pages, report.wakeups)}`).join(', ')}`);
    }
    lines.push(`statements per wakeup: ${per(count, report.wakeups)}`);
    const ceiling = statementCeiling(report);
    lines.push(report.backend === 'SQLite'
      ? `time in statements: ${pct(total, report.windowMs)} of the window (one connection: statements do not overlap); `
        + `${report.wakeups > 0 ? us(total / report.wakeups) : '-'} µs of statements a wakeup`
        + (ceiling === null ? '' : `, a ceiling of ${Math.round(ceiling)} wakeups/s were the JavaScript free`)
      : 'shares are of the summed client-side times, which overlap (pipelined statements, a pool of connections)');
    for (const line of lines) console.log(line);
    if (report.serverNote) console.log(report.serverNote);
    if (report.server) {
      const serverTotal = report.server.reduce((sum, stat) => sum + stat.totalMs, 0);
      const serverWal = report.server.reduce((sum, stat) => sum + stat.walBytes, 0);
      console.log(`\n${report.id} on the server (pg_stat_statements, execution time, the window's statements of this database)`);
      const serverRows = [...report.server].sort((a, b) => b.totalMs - a.totalMs)
        .map((stat) => [label(stat.text), String(stat.calls), ms(stat.totalMs), us(stat.totalMs / stat.calls), pct(stat.totalMs, serverTotal), String(stat.walBytes)]);
      for (const line of table(['statement', 'calls', 'total ms', 'mean µs', 'share', 'WAL bytes'], serverRows, 1)) console.log(line);
      console.log(`server execution: ${ms(serverTotal)} ms in all; the statements' own WAL ${serverWal} bytes (the commit records are the rest)`);
    }
  }
}
