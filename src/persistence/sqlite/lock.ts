import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * One scheduler process per database file. Boot recovery marks every running run `interrupted`;
 * a second process doing that to a live one would double work, so it refuses to start instead.
 * A lock left by a process that died (SIGKILL) names a dead pid and is taken over.
 */
export class DatabaseLockedError extends Error {
  override name = 'DatabaseLockedError';
}

export function acquireDatabaseLock(dbPath: string): () => void {
  if (dbPath === ':memory:') return () => undefined;
  const lockPath = `${dbPath}.lock`;
  mkdirSync(dirname(lockPath), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(lockPath, 'utf8'));
      if (isAlive(holder) && holder !== process.pid) {
        throw new DatabaseLockedError(`${dbPath} is in use by another Office Scheduler (pid ${holder}); stop it first, or set OFFICE_DB to another file`);
      }
      rmSync(lockPath, { force: true });
    }
  }
  throw new DatabaseLockedError(`could not lock ${dbPath}: ${lockPath} keeps reappearing`);
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
