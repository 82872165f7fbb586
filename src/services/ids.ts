import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/**
 * Opaque ids with a readable prefix, so a log line says what kind of thing an id is. The 32 hex
 * digits are a UUIDv7: time first, and increasing within this process even inside one millisecond,
 * so ids sort in the order they were made. Lists break ties between rows of the same millisecond
 * by id, the same way on every backend (no reliance on SQLite's rowid).
 */
export const newId = (prefix: string) => `${prefix}_${uuidv7().replaceAll('-', '')}`;

/** URL-safe secrets for webhook triggers and run tokens. */
export const newSecret = (bytes = 24) => randomBytes(bytes).toString('base64url');
