/**
 * The statement profile's view of the WAL (src/persistence/sqlite/walIndex.ts): how many frames a
 * commit appended, and which pages they hold, read from the -shm and -wal files of a real database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/persistence/sqlite/database.js';
import { framesAppended, WalIndex } from '../../src/persistence/sqlite/walIndex.js';

describe('the WAL index', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('names the pages a commit appended: the root pages of the table and the index it wrote, and no others', () => {
    dir = mkdtempSync(join(tmpdir(), 'office-wal-index-'));
    const path = join(dir, 'office.db');
    const db = openDatabase(path, { synchronous: 'NORMAL' });
    const wal = new WalIndex(path);
    try {
      db.exec('CREATE TABLE written (id INTEGER PRIMARY KEY, name TEXT); CREATE INDEX written_by_name ON written(name);');
      db.exec('CREATE TABLE untouched (id INTEGER PRIMARY KEY, name TEXT); CREATE INDEX untouched_by_name ON untouched(name);');
      const rootOf = (name: string) => (db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').get(name) as { rootpage: number }).rootpage;

      const before = wal.read();
      db.prepare('INSERT INTO written (name) VALUES (?)').run('one');
      const after = wal.read();

      const pages = wal.pagesAppended(before, after)!;
      expect(pages).toHaveLength(framesAppended(before, after)!);
      expect(pages).toEqual(expect.arrayContaining([rootOf('written'), rootOf('written_by_name')]));
      expect(pages).not.toContain(rootOf('untouched'));
      expect(pages).not.toContain(rootOf('untouched_by_name'));
    } finally {
      wal.close();
      db.close();
    }
  });
});
