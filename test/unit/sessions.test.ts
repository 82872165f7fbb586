import { describe, expect, it } from 'vitest';
import { clearedSessionCookie, hasCsrfProof, sessionCookie, sessionSecretFrom } from '../../src/domain/sessions.js';

describe('the session cookie', () => {
  it('is found among the other cookies of a Cookie header, and an empty one is no session', () => {
    expect(sessionSecretFrom('theme=dark; office_session=abc123; other=1')).toBe('abc123');
    expect(sessionSecretFrom('office_session_old=zzz; office_session=abc123')).toBe('abc123');
    expect(sessionSecretFrom('theme=dark')).toBeNull();
    expect(sessionSecretFrom('office_session=')).toBeNull();
    expect(sessionSecretFrom(undefined)).toBeNull();
  });

  it('is HttpOnly and SameSite=Strict, Secure only when asked, and cleared with Max-Age=0', () => {
    expect(sessionCookie('s3cret', 3600, false)).toBe('office_session=s3cret; Path=/; Max-Age=3600; HttpOnly; SameSite=Strict');
    expect(sessionCookie('s3cret', 3600, true)).toMatch(/; Secure$/);
    expect(clearedSessionCookie(false)).toBe('office_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict');
  });
});

describe('the CSRF proof of a cookie-authenticated request', () => {
  it('is not needed for reads', () => {
    expect(hasCsrfProof('GET', undefined)).toBe(true);
    expect(hasCsrfProof('HEAD', undefined)).toBe(true);
  });

  it('is a JSON content type on every write, with or without parameters', () => {
    expect(hasCsrfProof('POST', 'application/json')).toBe(true);
    expect(hasCsrfProof('PATCH', 'application/json; charset=utf-8')).toBe(true);
    expect(hasCsrfProof('DELETE', 'Application/JSON')).toBe(true);
  });

  it('is missing for what a form or a simple cross-site request can send', () => {
    expect(hasCsrfProof('POST', 'application/x-www-form-urlencoded')).toBe(false);
    expect(hasCsrfProof('POST', 'multipart/form-data; boundary=x')).toBe(false);
    expect(hasCsrfProof('POST', 'text/plain')).toBe(false);
    expect(hasCsrfProof('POST', 'application/jsonp')).toBe(false);
    expect(hasCsrfProof('DELETE', undefined)).toBe(false);
  });
});
