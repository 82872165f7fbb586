/**
 * The one mapping from SQLite errors to StorageUnavailableError, and from that to the API's
 * 503 storage_unavailable; the WAL bounds every connection is opened with.
 */
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { handleError } from '../../src/http/errors.js';
import { openDatabase } from '../../src/persistence/sqlite/database.js';
import { toStorageUnavailable } from '../../src/persistence/sqlite/storageFailure.js';
import { StorageUnavailableError } from '../../src/persistence/storageUnavailable.js';

const sqliteError = (code: string, message = 'database or disk is full') => new Database.SqliteError(message, code);

describe('toStorageUnavailable', () => {
  it.each(['SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_READONLY_DBMOVED', 'SQLITE_IOERR', 'SQLITE_IOERR_WRITE', 'SQLITE_IOERR_FSYNC', 'SQLITE_CANTOPEN'])(
    'maps %s to StorageUnavailableError, keeping the code and the cause', (code) => {
      const original = sqliteError(code);
      const mapped = toStorageUnavailable(original);
      expect(mapped).toBeInstanceOf(StorageUnavailableError);
      expect(mapped!.storageCode).toBe(code);
      expect(mapped!.message).toContain(code);
      expect(mapped!.cause).toBe(original);
    });

  it.each(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_BUSY', 'SQLITE_ERROR', 'SQLITE_FULLNESS_IS_NOT_A_CODE'])('leaves %s alone', (code) => {
    expect(toStorageUnavailable(sqliteError(code))).toBeNull();
  });

  it('leaves errors that are not SQLite errors alone', () => {
    expect(toStorageUnavailable(new Error('SQLITE_FULL mentioned in a message'))).toBeNull();
    expect(toStorageUnavailable(Object.assign(new Error('x'), { code: 'SQLITE_FULL' }))).toBeNull();
  });
});

describe('handleError', () => {
  async function answerTo(error: Error) {
    const app = Fastify({ logger: false });
    app.setErrorHandler(handleError);
    app.post('/write', async () => {
      throw error;
    });
    const response = await app.inject({ method: 'POST', url: '/write' });
    await app.close();
    return response;
  }

  it('answers a storage failure with 503 storage_unavailable, the reason, and a Retry-After', async () => {
    const response = await answerTo(toStorageUnavailable(sqliteError('SQLITE_FULL'))!);
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    const body = response.json();
    expect(body.error.code).toBe('storage_unavailable');
    expect(body.error.message).toContain('SQLITE_FULL: database or disk is full');
    expect(body.error.message).toContain('free space');
  });

  it('still answers an unexpected error with 500 internal_error', async () => {
    const response = await answerTo(sqliteError('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed'));
    expect(response.statusCode).toBe(500);
    expect(response.json().error.code).toBe('internal_error');
  });
});

describe('openDatabase', () => {
  it('bounds the WAL: an explicit autocheckpoint and a journal size limit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'office-db-'));
    try {
      const db = openDatabase(join(dir, 'office.db'), { synchronous: 'NORMAL' });
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);
      expect(db.pragma('journal_size_limit', { simple: true })).toBe(64 * 1024 * 1024);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
