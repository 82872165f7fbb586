/**
 * Dashboard sessions: a person signs in once with an API token and the browser keeps an HttpOnly
 * cookie instead, so no token travels in a URL (proxies log URLs) or sits in page-readable storage.
 * Rules and cookie text only; the store keeps sessions, the HTTP layer reads and writes cookies.
 */
import { randomBytes } from 'node:crypto';
import { hashRunToken } from './runTokens.js';

export const SESSION_COOKIE = 'office_session';

/** A stored session: never the secret the cookie carries, only its hash. */
export interface Session {
  id: string;
  /** sha256 (hex) of the cookie's secret: a copy of the database cannot act as any browser. */
  secret_hash: string;
  /** The id of the token it was exchanged for ("admin" for OFFICE_API_TOKEN): the principal it acts as. */
  token_id: string;
  /**
   * sha256 (hex) of the token it was exchanged for. The bootstrap token has no row to revoke: it is
   * revoked by changing OFFICE_API_TOKEN, and this is how its sessions notice.
   */
  credential_hash: string;
  created_at: number;
  expires_at: number;
}

/** 32 random bytes, base64url: what the cookie carries. */
export function newSessionSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** The same sha256 as run tokens: the secret is 256 random bits, so a fast unsalted hash loses nothing and allows an indexed lookup. */
export const hashSessionSecret = hashRunToken;

/** The cookie's value in a Cookie header, or null. */
export function sessionSecretFrom(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  for (const pair of cookieHeader.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = pair.slice(eq + 1).trim();
    return value === '' ? null : value;
  }
  return null;
}

/**
 * The Set-Cookie value. HttpOnly: page scripts (and so an injected script) cannot read it.
 * SameSite=Strict: the browser sends it only on requests that another site did not start, which
 * is the first half of the CSRF defence (see hasCsrfProof). Secure when the page came over
 * HTTPS; on plain http://127.0.0.1 a Secure cookie would never be sent back.
 */
export function sessionCookie(secret: string, maxAgeSec: number, secure: boolean): string {
  return [`${SESSION_COOKIE}=${secret}`, 'Path=/', `Max-Age=${Math.max(0, Math.floor(maxAgeSec))}`, 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])].join('; ');
}

/** Tells the browser to forget the cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', 0, secure);
}

/**
 * Whether a request authenticated by the session cookie proves it came from the dashboard itself.
 * SameSite=Strict already keeps the cookie off requests that other sites start; as a second,
 * independent guard (older browsers, a same-site sibling host), a cookie-authenticated write must be
 * sent as `Content-Type: application/json`. A cross-origin page can send that content type only
 * through fetch with a CORS preflight, which this server never grants, while an HTML form, an
 * <img> or a navigation cannot send it at all. Reads change nothing, so they need no proof.
 */
export function hasCsrfProof(method: string, contentType: string | undefined): boolean {
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return true;
  return /^application\/json\s*(;|$)/i.test(contentType ?? '');
}
