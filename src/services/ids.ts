import { randomBytes, randomUUID } from 'node:crypto';

/** Opaque ids with a readable prefix, so a log line says what kind of thing an id is. */
export const newId = (prefix: string) => `${prefix}_${randomUUID().replaceAll('-', '')}`;

/** URL-safe secrets for webhook triggers and run tokens. */
export const newSecret = (bytes = 24) => randomBytes(bytes).toString('base64url');
