import { createHash } from 'node:crypto';

/** A run token is stored only as this hash, so a copy of the database cannot act as any run. */
export const hashRunToken = (token: string) => createHash('sha256').update(token).digest('hex');
