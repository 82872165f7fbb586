import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createScheduler } from '../../src/scheduler.js';
import { openDatabase } from '../../src/persistence/sqlite/database.js';
import { loadSqliteMigrations, migrate } from '../../src/persistence/sqlite/migrate.js';
import { createStore } from '../../src/persistence/createStore.js';
import type { Store } from '../../src/persistence/store.js';
import { READ_USAGE, ROWS_BEFORE_DAILY_USAGE, USAGE_AFTER_UPGRADE } from '../helpers/dailyUsageUpgrade.js';
import { sqliteFaults, type SqliteFaults } from '../helpers/storage.js';

const SPEC_TABLES = [
  'agent_wakeup_requests', 'runs', 'office_routines', 'office_routine_triggers', 'office_routine_runs',
  'agent_continuation_summaries', 'actor_snapshots', 'workspaces', 'projects', 'agent_instances', 'tasks',
  'comments', 'approvals', 'budgets', 'cost_ledger', 'activity_log', 'inbox_items',
];
const RUN_COLUMNS = ['attempt', 'wakeup_id', 'result_json', 'assembled_prompt', 'summary_injected', 'context_snapshot'];

let dir: string;
let dbPath: string;
const toClose: { close(): unknown }[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'office-migrations-'));
  dbPath = join(dir, 'nested', 'office.db');
});
afterEach(async () => {
  for (const handle of toClose.splice(0).reverse()) await handle.close();
  rmSync(dir, { recursive: true, force: true });
});

function tablesOf(db: SqliteFaults): string[] {
  return db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => r.name);
}

/** A connection of its own on the file: what the schema and the migration records look like from outside. */
function inspect(path: string): SqliteFaults {
  const db = sqliteFaults(path);
  toClose.push(db);
  return db;
}

function newStore(path: string, synchronous: 'NORMAL' | 'FULL' = 'NORMAL'): Store {
  const store = createStore({ dbPath: path, sqliteSync: synchronous }, { now: () => Date.now(), publish: () => undefined });
  toClose.push(store);
  return store;
}

describe('migrations on an empty SQLite file', () => {
  it('creates the database file (and its directory) and every table the spec names', () => {
    expect(existsSync(dbPath)).toBe(false);
    const db = openDatabase(dbPath, { synchronous: 'NORMAL' });
    toClose.push(db);
    const applied = migrate(db);
    expect(applied).toEqual(loadSqliteMigrations().map((m) => m.name));
    expect(applied.length).toBeGreaterThan(0);
    expect(existsSync(dbPath)).toBe(true);

    const tables = tablesOf(inspect(dbPath));
    for (const table of SPEC_TABLES) expect(tables, `table ${table}`).toContain(table);
    expect(tables).toContain('schema_migrations');
  });

  it('gives runs the columns attempt, wakeup_id, result_json, assembled_prompt, summary_injected and context_snapshot', () => {
    newStore(dbPath);
    const columns = inspect(dbPath).all<{ name: string }>('PRAGMA table_info(runs)').map((c) => c.name);
    for (const column of RUN_COLUMNS) expect(columns, `runs.${column}`).toContain(column);
  });

  it('records each applied migration once in schema_migrations, in version order', () => {
    newStore(dbPath);
    const rows = inspect(dbPath).all('SELECT version, name FROM schema_migrations ORDER BY version');
    expect(rows).toEqual(loadSqliteMigrations().map((m) => ({ version: m.version, name: m.name })));
  });
});

describe('migrations on a second boot', () => {
  it('apply nothing, raise no error and leave schema_migrations and the schema exactly as they were', async () => {
    const first = newStore(dbPath);
    sqliteFaults(first).run("INSERT INTO workspaces (id, name, created_at, updated_at) VALUES ('ws_keep', 'Keep', 1, 1)");
    await first.close();
    const reader = sqliteFaults(dbPath);
    const migrationsBefore = reader.all('SELECT * FROM schema_migrations ORDER BY version');
    const schemaBefore = reader.all('SELECT type, name, sql FROM sqlite_master ORDER BY name');
    reader.close();

    // The second boot, through the store as the server does it...
    expect(() => newStore(dbPath)).not.toThrow();
    // ...and the migrator itself reports nothing pending.
    const db = openDatabase(dbPath, { synchronous: 'NORMAL' });
    toClose.push(db);
    expect(migrate(db)).toEqual([]);

    const after = inspect(dbPath);
    expect(after.all('SELECT * FROM schema_migrations ORDER BY version')).toEqual(migrationsBefore);
    expect(after.all('SELECT type, name, sql FROM sqlite_master ORDER BY name')).toEqual(schemaBefore);
    expect(after.get("SELECT name FROM workspaces WHERE id = 'ws_keep'")).toEqual({ name: 'Keep' });
  });

  it('apply only a migration added since the last boot', () => {
    const db = openDatabase(dbPath, { synchronous: 'NORMAL' });
    toClose.push(db);
    const shipped = loadSqliteMigrations();
    migrate(db, shipped);
    const added = { version: 9999, name: '9999_added_later.sql', sql: 'CREATE TABLE added_later (id INTEGER PRIMARY KEY);' };
    expect(migrate(db, [...shipped, added])).toEqual(['9999_added_later.sql']);
    expect(tablesOf(inspect(dbPath))).toContain('added_later');
    expect(migrate(db, [...shipped, added])).toEqual([]);
  });

  it('leave the schema untouched when a pending migration fails part-way (all or nothing)', () => {
    const db = openDatabase(dbPath, { synchronous: 'NORMAL' });
    toClose.push(db);
    const good = { version: 1, name: '0001_good.sql', sql: 'CREATE TABLE good_one (id INTEGER PRIMARY KEY);' };
    const bad = { version: 2, name: '0002_bad.sql', sql: 'CREATE TABLE bad_one (id INTEGER PRIMARY KEY); THIS IS NOT SQL;' };
    expect(() => migrate(db, [good, bad])).toThrow();
    expect(tablesOf(inspect(dbPath))).not.toContain('good_one');
    expect(tablesOf(inspect(dbPath))).not.toContain('bad_one');
    expect(db.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get()).toEqual({ n: 0 });
  });
});

describe('migration 0015 (link positions)', () => {
  it('numbers the blockers and reviewers written before it in the order they were inserted, not by id', () => {
    const db = openDatabase(dbPath, { synchronous: 'NORMAL' });
    toClose.push(db);
    migrate(db, loadSqliteMigrations().filter((m) => m.version < 15));
    db.exec(`INSERT INTO workspaces (id, name, created_at, updated_at) VALUES ('ws_1', 'W', 1, 1);
      INSERT INTO agent_instances (id, workspace_id, name, role, skip_idle_wakeups, created_at, updated_at) VALUES
        ('agt_b', 'ws_1', 'B', 'worker', 0, 1, 1), ('agt_a', 'ws_1', 'A', 'worker', 0, 1, 1);
      INSERT INTO tasks (id, workspace_id, title, created_at, updated_at) VALUES
        ('tsk_t', 'ws_1', 'T', 1, 1), ('tsk_b', 'ws_1', 'B', 1, 1), ('tsk_a', 'ws_1', 'A', 1, 1);
      INSERT INTO task_blockers (task_id, blocker_task_id) VALUES ('tsk_t', 'tsk_b'), ('tsk_t', 'tsk_a');
      INSERT INTO task_reviewers (task_id, agent_id) VALUES ('tsk_t', 'agt_b'), ('tsk_t', 'agt_a');`);
    expect(migrate(db)).toContain('0015_link_positions.sql');
    const reader = inspect(dbPath);
    expect(reader.all('SELECT blocker_task_id AS id, position FROM task_blockers ORDER BY position')).toEqual([{ id: 'tsk_b', position: 0 }, { id: 'tsk_a', position: 1 }]);
    expect(reader.all('SELECT agent_id AS id, position FROM task_reviewers ORDER BY position')).toEqual([{ id: 'agt_b', position: 0 }, { id: 'agt_a', position: 1 }]);
  });
});

describe('migration 0012 (run lifecycle)', () => {
  it("gives the first assignment wakeup of a routine's task that task's routine run, and no other wakeup", () => {
    const db = openDatabase(dbPath, { synchronous: 'NORMAL' });
    toClose.push(db);
    migrate(db, loadSqliteMigrations().filter((m) => m.version < 12));
    db.exec(`INSERT INTO workspaces (id, name, created_at, updated_at) VALUES ('ws_1', 'W', 1, 1);
      INSERT INTO agent_instances (id, workspace_id, name, role, skip_idle_wakeups, created_at, updated_at) VALUES ('agt_a', 'ws_1', 'A', 'worker', 0, 1, 1);
      INSERT INTO tasks (id, workspace_id, title, workflow, created_at, updated_at) VALUES ('tsk_r', 'ws_1', 'R', 'routine', 1, 1), ('tsk_o', 'ws_1', 'O', 'office', 1, 1);
      INSERT INTO office_routines (id, workspace_id, name, assignee_agent_instance_id, created_at, updated_at) VALUES ('rtn_1', 'ws_1', 'R', 'agt_a', 1, 1);
      INSERT INTO office_routine_runs (id, routine_id, source, status, dispatch_fingerprint, linked_task_id, started_at)
        VALUES ('rr_1', 'rtn_1', 'cron', 'task_created', 'f', 'tsk_r', 1);
      INSERT INTO agent_wakeup_requests (id, workspace_id, agent_id, source, reason, task_id, status, available_at, requested_at) VALUES
        ('wk_later', 'ws_1', 'agt_a', 'task_assigned', 'reassigned', 'tsk_r', 'queued', 5, 5),
        ('wk_first', 'ws_1', 'agt_a', 'task_assigned', 'assigned', 'tsk_r', 'finished', 2, 2),
        ('wk_comment', 'ws_1', 'agt_a', 'comment', 'comment', 'tsk_r', 'queued', 3, 3),
        ('wk_office', 'ws_1', 'agt_a', 'task_assigned', 'assigned', 'tsk_o', 'queued', 2, 2);`);
    expect(migrate(db)).toContain('0012_run_lifecycle_triggers.sql');
    const rows = inspect(dbPath).all<{ id: string; routine_run_id: string | null }>('SELECT id, routine_run_id FROM agent_wakeup_requests ORDER BY id');
    expect(rows).toEqual([
      { id: 'wk_comment', routine_run_id: null },
      { id: 'wk_first', routine_run_id: 'rr_1' },
      { id: 'wk_later', routine_run_id: null },
      { id: 'wk_office', routine_run_id: null },
    ]);
  });
});

describe('migration 0020 (unattended provenance)', () => {
  it("gives earlier fire wakeups and routine tasks their routine run's unattended and on_behalf_of, and earlier unattended entries their owner, leaving the rest attended", () => {
    const db = openDatabase(dbPath, { synchronous: 'NORMAL' });
    toClose.push(db);
    migrate(db, loadSqliteMigrations().filter((m) => m.version < 20));
    db.exec(`INSERT INTO workspaces (id, name, created_at, updated_at) VALUES ('ws_1', 'W', 1, 1);
      INSERT INTO agent_instances (id, workspace_id, name, role, skip_idle_wakeups, created_at, updated_at) VALUES ('agt_a', 'ws_1', 'A', 'worker', 0, 1, 1);
      INSERT INTO tasks (id, workspace_id, title, workflow, created_at, updated_at) VALUES ('tsk_r', 'ws_1', 'R', 'routine', 1, 1), ('tsk_o', 'ws_1', 'O', 'office', 1, 1);
      INSERT INTO office_routines (id, workspace_id, name, assignee_agent_instance_id, owner_id, created_at, updated_at) VALUES ('rtn_1', 'ws_1', 'R', 'agt_a', 'tok_alice', 1, 1);
      INSERT INTO office_routine_runs (id, routine_id, source, status, dispatch_fingerprint, linked_task_id, linked_wakeup_id, unattended, on_behalf_of, started_at) VALUES
        ('rr_cron', 'rtn_1', 'cron', 'task_created', 'f', 'tsk_r', NULL, 1, 'tok_alice', 1),
        ('rr_hand', 'rtn_1', 'manual', 'dispatched', 'f', NULL, 'wk_hand', 0, 'admin', 2);
      INSERT INTO agent_wakeup_requests (id, workspace_id, agent_id, source, reason, task_id, status, routine_run_id, available_at, requested_at) VALUES
        ('wk_assigned', 'ws_1', 'agt_a', 'task_assigned', 'assigned', 'tsk_r', 'finished', 'rr_cron', 2, 2),
        ('wk_hand', 'ws_1', 'agt_a', 'routine', 'manual', NULL, 'finished', 'rr_hand', 2, 2),
        ('wk_person', 'ws_1', 'agt_a', 'task_assigned', 'assigned', 'tsk_o', 'queued', NULL, 3, 3);
      INSERT INTO activity_log (workspace_id, code, unattended, details, created_at) VALUES
        ('ws_1', 'routine_run_task_created', 1, '{"on_behalf_of":"tok_alice"}', 1), ('ws_1', 'wakeup_idle_skipped', 0, '{}', 2);`);
    expect(migrate(db)).toContain('0020_unattended_provenance.sql');
    const reader = inspect(dbPath);
    expect(reader.all('SELECT id, unattended, on_behalf_of FROM agent_wakeup_requests ORDER BY id')).toEqual([
      { id: 'wk_assigned', unattended: 1, on_behalf_of: 'tok_alice' },
      { id: 'wk_hand', unattended: 0, on_behalf_of: 'admin' },
      { id: 'wk_person', unattended: 0, on_behalf_of: null },
    ]);
    expect(reader.all('SELECT id, unattended, on_behalf_of FROM tasks ORDER BY id')).toEqual([
      { id: 'tsk_o', unattended: 0, on_behalf_of: null },
      { id: 'tsk_r', unattended: 1, on_behalf_of: 'tok_alice' },
    ]);
    expect(reader.all('SELECT code, unattended, on_behalf_of FROM activity_log ORDER BY id')).toEqual([
      { code: 'routine_run_task_created', unattended: 1, on_behalf_of: 'tok_alice' },
      { code: 'wakeup_idle_skipped', unattended: 0, on_behalf_of: null },
    ]);
  });
});

describe('migration 0029 (daily usage)', () => {
  it("counts every day's runs that took a claim and its ledger spend, per agent, so an upgrade mid-day keeps the caps", () => {
    const db = openDatabase(dbPath, { synchronous: 'NORMAL' });
    toClose.push(db);
    migrate(db, loadSqliteMigrations().filter((m) => m.version < 29));
    db.exec(ROWS_BEFORE_DAILY_USAGE);
    expect(migrate(db)).toContain('0029_agent_daily_usage.sql');
    expect(inspect(dbPath).all(READ_USAGE)).toEqual(USAGE_AFTER_UPGRADE);
  });
});

describe('connection pragmas', () => {
  it('open in WAL mode with foreign keys on and synchronous=NORMAL (1) by default', () => {
    const store = sqliteFaults(newStore(dbPath, loadConfig({}).sqliteSync));
    expect(store.pragma('journal_mode')).toBe('wal');
    expect(store.pragma('foreign_keys')).toBe(1);
    expect(store.pragma('synchronous')).toBe(1);
    // WAL is a property of the file: another connection sees it too.
    expect(inspect(dbPath).pragma('journal_mode')).toBe('wal');
  });

  it('use synchronous=FULL (2) when OFFICE_SQLITE_SYNC=FULL', async () => {
    const scheduler = await createScheduler({
      config: loadConfig({ OFFICE_DB: dbPath, OFFICE_SQLITE_SYNC: 'FULL', OFFICE_LOG_LEVEL: 'silent', OFFICE_PORT: '0' }),
    });
    toClose.push({ close: () => scheduler.stop() });
    const db = sqliteFaults(scheduler.store);
    expect(db.pragma('synchronous')).toBe(2);
    expect(db.pragma('journal_mode')).toBe('wal');
    expect(db.pragma('foreign_keys')).toBe(1);
  });

  it('enforce foreign keys: a project pointing at a missing workspace is refused', () => {
    const store = sqliteFaults(newStore(dbPath));
    expect(() => store.run(
      "INSERT INTO projects (id, workspace_id, name, created_at, updated_at) VALUES ('p1', 'ws_missing', 'P', 1, 1)"),
    ).toThrow(/FOREIGN KEY/);
  });
});
