import { createHash, randomBytes } from 'node:crypto';

/** Named API tokens start with this, so a leaked one is recognisable (secret scanners, logs) and never mistaken for a run token. */
export const API_TOKEN_PREFIX = 'ost_';

/** 32 random bytes: 256 bits, far beyond any guessing. */
export function newApiTokenSecret(): string {
  return `${API_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/**
 * Only this hash is stored. A plain sha256 is enough, and a slow password hash (bcrypt, scrypt)
 * would add nothing: the secret is 256 random bits, not a human password, so there is no dictionary
 * to try and no shorter search than the full key space. A fast, unsalted hash also lets a request
 * find its token by an index lookup on the hash instead of comparing against every stored token.
 */
export const hashApiToken = (secret: string) => createHash('sha256').update(secret).digest('hex');
