import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseLockedError, acquireDatabaseLock } from '../../src/persistence/sqlite/lock.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('one scheduler process per database file', () => {
  it('refuses a database locked by another live process, and says which', async () => {
    dir = mkdtempSync(join(tmpdir(), 'office-lock-'));
    const dbPath = join(dir, 'office.db');
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)']);
    try {
      writeFileSync(`${dbPath}.lock`, String(holder.pid));
      expect(() => acquireDatabaseLock(dbPath)).toThrow(DatabaseLockedError);
      expect(() => acquireDatabaseLock(dbPath)).toThrow(new RegExp(`pid ${holder.pid}`));
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('takes over a lock left by a process that died, and releases it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'office-lock-'));
    const dbPath = join(dir, 'office.db');
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => dead.on('exit', resolve));
    writeFileSync(`${dbPath}.lock`, String(dead.pid));
    const release = acquireDatabaseLock(dbPath);
    expect(readFileSync(`${dbPath}.lock`, 'utf8')).toBe(String(process.pid));
    release();
    expect(existsSync(`${dbPath}.lock`)).toBe(false);
  });
});
