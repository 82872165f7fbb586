import { readdirSync, readFileSync } from 'node:fs';

const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Numbered .sql files, in order. A shipped migration is never edited: add a new one. */
export function loadMigrations(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((file) => MIGRATION_FILE.test(file))
    .sort()
    .map((file) => ({
      version: Number(MIGRATION_FILE.exec(file)![1]),
      name: file,
      sql: readFileSync(`${dir}/${file}`, 'utf8'),
    }));
}
