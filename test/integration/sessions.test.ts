/**
 * Dashboard sign-in (issue 17): the API token is exchanged once for an HttpOnly, SameSite=Strict
 * session cookie that the API and the event stream accept, so no token travels in a URL. Only the
 * hash of the cookie's secret is stored; the session acts as its token and dies with it. The old
 * `?token=` on the stream keeps working for one release, with a warning in the log.
 * Real HTTP server, real SQLite file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { loadConfig } from '../../src/config.js';
import { hashSessionSecret, SESSION_COOKIE } from '../../src/domain/sessions.js';
import { createScheduler, type Scheduler } from '../../src/scheduler.js';
import { FAST_ENV, startHarness, type Harness } from '../helpers/harness.js';
import { capturingLogger } from '../helpers/logs.js';
import { readStream } from '../helpers/stream.js';

const TOKEN = 'sessions-test-token-7c2e';
const BEARER = { authorization: `Bearer ${TOKEN}` };

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

/** The Set-Cookie of a raw response: the cookie's value and its attributes, lower-cased. */
function parseSetCookie(header: string | null) {
  expect(header).not.toBeNull();
  const [pair, ...attributes] = header!.split(';').map((part) => part.trim());
  const [name, value] = pair!.split('=');
  return { name, value: value ?? '', attributes: attributes.map((a) => a.toLowerCase()) };
}

async function signIn(url: string, headers: Record<string, string> = BEARER) {
  const response = await fetch(`${url}/api/office/session`, { method: 'POST', headers });
  const body = await response.json();
  return { status: response.status, body, setCookie: response.headers.get('set-cookie') };
}

/** Signs in and returns the Cookie header a browser would send back. */
async function cookieOf(url: string): Promise<string> {
  const { status, setCookie } = await signIn(url);
  expect(status).toBe(201);
  const cookie = parseSetCookie(setCookie);
  return `${cookie.name}=${cookie.value}`;
}

describe('signing in to the dashboard', () => {
  it('exchanges the bearer token for an HttpOnly, SameSite=Strict cookie that is not the token, and stores only its hash', async () => {
    h = await startHarness({ OFFICE_API_TOKEN: TOKEN, OFFICE_SESSION_TTL_HOURS: '2' });
    const { status, body, setCookie } = await signIn(h.url);
    expect(status).toBe(201);
    expect(body).toMatchObject({ signed_in: true, token_id: 'admin', role: 'admin', via: 'session', expires_at: expect.any(String) });
    const cookie = parseSetCookie(setCookie);
    expect(cookie.name).toBe(SESSION_COOKIE);
    expect(cookie.attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=strict', 'path=/', `max-age=${2 * 3600}`]));
    expect(cookie.attributes).not.toContain('secure');
    expect(cookie.value.length).toBeGreaterThanOrEqual(40);
    expect(cookie.value).not.toContain(TOKEN);

    const rows = await h.inspect.rows('sessions');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ token_id: 'admin', secret_hash: hashSessionSecret(cookie.value) });
    expect(JSON.stringify(rows)).not.toContain(cookie.value);
    expect(JSON.stringify(rows)).not.toContain(TOKEN);
  });

  it('the cookie is Secure when the browser came over HTTPS through a TLS-terminating proxy', async () => {
    h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
    const { setCookie } = await signIn(h.url, { ...BEARER, 'x-forwarded-proto': 'https' });
    expect(parseSetCookie(setCookie).attributes).toContain('secure');
  });

  it('GET /api/office/session answers signed_in: false without a credential (no 401 for the dashboard to log), and a wrong token is still a 401', async () => {
    h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
    expect(await h.api('GET', '/api/office/session')).toEqual({ status: 200, body: { signed_in: false, token_id: null, role: null, via: null, expires_at: null } });
    expect((await h.api('GET', '/api/office/session', undefined, { cookie: `${SESSION_COOKIE}=made-up` })).body.signed_in).toBe(false);
    expect((await h.api('GET', '/api/office/session', undefined, { authorization: 'Bearer not-the-token' })).status).toBe(401);
  });

  it('the cookie alone authenticates the API, and GET /api/office/session says so', async () => {
    h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
    expect((await h.api('GET', '/api/office/workspaces')).status).toBe(401);
    const cookie = await cookieOf(h.url);
    const me = await h.api('GET', '/api/office/session', undefined, { cookie });
    expect(me).toMatchObject({ status: 200, body: { signed_in: true, token_id: 'admin', role: 'admin', via: 'session' } });
    expect((await h.api('GET', '/api/office/workspaces', undefined, { cookie })).status).toBe(200);
    expect((await h.api('POST', '/api/office/workspaces', { name: 'Signed in' }, { cookie })).status).toBe(201);
    expect((await h.api('GET', '/api/office/session', undefined, BEARER)).body).toMatchObject({ via: 'token', expires_at: null });
  });

  it('the event stream accepts the session cookie, with no token in its URL', async () => {
    h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
    expect((await readStream(`${h.url}/api/office/stream`, /event: hello/)).status).toBe(401);
    const cookie = await cookieOf(h.url);
    const { status, text } = await readStream(`${h.url}/api/office/stream`, /event: hello/, { cookie });
    expect(status).toBe(200);
    expect(text).toMatch(/event: hello\n/);
  });

  it('a cookie-authenticated write must be sent as JSON (CSRF): a form post is a 403 that writes nothing', async () => {
    h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
    const cookie = await cookieOf(h.url);
    const before = await h.inspect.count('workspaces');
    const form = await h.api('POST', '/api/office/workspaces', 'name=Forged', { cookie, 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(403);
    expect(form.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('Content-Type: application/json') });
    const bare = await fetch(`${h.url}/api/office/session`, { method: 'DELETE', headers: { cookie } });
    expect(bare.status).toBe(403);
    expect(await h.inspect.count('workspaces')).toBe(before);
    expect(await h.inspect.count('sessions')).toBe(1);
  });

  it('a session cannot start another session, and a wrong token starts none', async () => {
    h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
    const cookie = await cookieOf(h.url);
    expect((await signIn(h.url, { cookie, 'content-type': 'application/json' })).status).toBe(403);
    const wrong = await signIn(h.url, { authorization: 'Bearer not-the-token' });
    expect(wrong.status).toBe(401);
    expect(wrong.setCookie).toBeNull();
    expect(await h.inspect.count('sessions')).toBe(1);
  });

  it('signing out clears the cookie and ends the session: the old cookie is refused with a 401 that says to sign in again', async () => {
    h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
    const cookie = await cookieOf(h.url);
    const response = await fetch(`${h.url}/api/office/session`, { method: 'DELETE', headers: { cookie, 'content-type': 'application/json' } });
    expect(response.status).toBe(204);
    const cleared = parseSetCookie(response.headers.get('set-cookie'));
    expect(cleared).toMatchObject({ name: SESSION_COOKIE, value: '' });
    expect(cleared.attributes).toContain('max-age=0');
    expect(await h.inspect.count('sessions')).toBe(0);
    const after = await h.api('GET', '/api/office/workspaces', undefined, { cookie });
    expect(after.status).toBe(401);
    expect(after.body.error.message).toMatch(/sign in again/);
    expect((await h.api('GET', '/api/office/session', undefined, { cookie })).body.signed_in).toBe(false);
  });

  it('a session ends when OFFICE_API_TOKEN changes: the bootstrap token it was exchanged for is revoked', async () => {
    h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
    const cookie = await cookieOf(h.url);
    await h.restart();
    expect((await h.api('GET', '/api/office/workspaces', undefined, { cookie })).status).toBe(200);
    await h.restart({ OFFICE_API_TOKEN: 'the-rotated-token' });
    expect((await h.api('GET', '/api/office/workspaces', undefined, { cookie })).status).toBe(401);
  });

  it('a session exchanged for a named token acts as that token (a member stays a member), and dies when the token is revoked', async () => {
    h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
    const member = (await h.api('POST', '/api/office/tokens', { name: 'Dana', role: 'member' }, BEARER)).body;
    const signedIn = await signIn(h.url, { authorization: `Bearer ${member.token}` });
    expect(signedIn.body).toMatchObject({ signed_in: true, token_id: member.id, role: 'member', via: 'session' });
    const cookie = `${SESSION_COOKIE}=${parseSetCookie(signedIn.setCookie).value}`;
    expect((await h.api('GET', '/api/office/tokens', undefined, { cookie })).status).toBe(403);
    expect((await h.api('GET', '/api/office/workspaces', undefined, { cookie })).status).toBe(200);

    const admins = await cookieOf(h.url);
    expect(await h.inspect.count('sessions', { token_id: member.id })).toBe(1);
    expect((await h.api('DELETE', `/api/office/tokens/${member.id}`, undefined, BEARER)).status).toBe(204);
    expect(await h.inspect.count('sessions', { token_id: member.id })).toBe(0);
    expect((await h.api('GET', '/api/office/workspaces', undefined, { cookie: admins })).status).toBe(200);
    const after = await h.api('GET', '/api/office/workspaces', undefined, { cookie });
    expect(after.status).toBe(401);
    expect((await h.api('GET', '/api/office/session', undefined, { cookie })).body.signed_in).toBe(false);
  });

  it('answers 409 to a sign-in where no OFFICE_API_TOKEN is set, and GET /api/office/session says the API is open', async () => {
    h = await startHarness();
    expect((await signIn(h.url, {})).status).toBe(409);
    expect((await h.api('GET', '/api/office/session')).body).toEqual({ signed_in: true, token_id: 'admin', role: 'admin', via: 'open', expires_at: null });
  });
});

describe('session expiry', () => {
  it('a session is refused once OFFICE_SESSION_TTL_HOURS have passed, and its row is swept at the next sign-in', async () => {
    const clock = new SimulatedClock();
    clock.set(Date.UTC(2026, 0, 5, 9, 0, 0));
    h = await startHarness({ OFFICE_API_TOKEN: TOKEN, OFFICE_SESSION_TTL_HOURS: '1' }, undefined, clock);
    const cookie = await cookieOf(h.url);
    clock.increment(3_600_000 - 1);
    expect((await h.api('GET', '/api/office/workspaces', undefined, { cookie })).status).toBe(200);
    clock.increment(1);
    expect((await h.api('GET', '/api/office/workspaces', undefined, { cookie })).status).toBe(401);
    await cookieOf(h.url);
    expect(await h.inspect.count('sessions')).toBe(1);
  });
});

describe('?token= on the event stream, kept for one release', () => {
  let dir: string | undefined;
  let scheduler: Scheduler | undefined;
  afterEach(async () => {
    await scheduler?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    scheduler = undefined;
    dir = undefined;
  });

  it('still opens the stream and the dashboard, and logs a warning that says what to use instead', async () => {
    const { log, lines } = capturingLogger('warn');
    dir = mkdtempSync(join(tmpdir(), 'office-sessions-'));
    scheduler = await createScheduler({
      config: loadConfig({ ...FAST_ENV, OFFICE_DB: join(dir, 'office.db'), OFFICE_API_TOKEN: TOKEN }),
      logger: log,
    });
    const { url } = await scheduler.start();
    expect((await readStream(`${url!}/api/office/stream`, /event: hello/)).status).toBe(401);
    expect(lines.filter((line) => String(line.msg).includes('?token='))).toEqual([]);
    const controller = new AbortController();
    const response = await fetch(`${url}/api/office/stream?token=${TOKEN}`, { signal: controller.signal });
    expect(response.status).toBe(200);
    controller.abort();
    const warning = lines.find((line) => String(line.msg).includes('?token='));
    expect(warning).toMatchObject({ level: 40, route: '/api/office/stream' });
    expect(String(warning!.msg)).toMatch(/deprecated.*sign in to the dashboard/);

    // The dashboard's own `/?token=` link still opens it (the page trades the token for a session), with a warning too.
    expect((await fetch(`${url}/office/routines?token=${TOKEN}`)).status).toBe(200);
    expect(lines.find((line) => String(line.msg).includes('?token= in a dashboard URL'))).toMatchObject({ level: 40, path: '/office/routines' });
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
  });
});
