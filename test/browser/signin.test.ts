/**
 * Sign-in in real Chromium against the real server with OFFICE_API_TOKEN set: the token is typed
 * once and traded for an HttpOnly session cookie; after that neither the API calls nor the event
 * stream carry it, in a URL or anywhere a page script could read it. Also the Stop button of a
 * running run, which goes through the same cookie. The tests run in order on one browser context.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboard } from '../../scripts/ensure-dashboard.mjs';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';
import { launchChromium, NO_BROWSER, recordPageErrors, DESKTOP_VIEWPORT } from './chromium.js';

const TOKEN = 'browser-signin-token-3b9d1f';
const BEARER = { authorization: `Bearer ${TOKEN}` };
const SHOTS = join(process.cwd(), 'test-results', 'dashboard');
const UI_TIMEOUT = 10_000;

let h: Harness;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let agentId: string;
/** Every URL the browser requested, from the first page load on. */
const requested: string[] = [];
let pageErrors: string[];

/** The page's globals that these tests read (the test itself compiles without the DOM library). */
interface WebStorage { getItem(key: string): string | null; setItem(key: string, value: string): void }
type PageGlobals = { localStorage: WebStorage & Record<string, string>; sessionStorage: WebStorage & Record<string, string>; document: { cookie: string } };

const api = (method: string, path: string, body?: unknown) => h.api(method, path, body, BEARER);
const signInForm = () => page.getByRole('form', { name: 'Sign in' });
const liveIndicator = () => page.getByTestId('live-indicator').and(page.getByText('live'));

describe.skipIf(NO_BROWSER)('signing in to the dashboard in Chromium', () => {
  beforeAll(async () => {
    await ensureDashboard({ log: () => {} });
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
    const ws = await api('POST', '/api/office/workspaces', { name: 'Acme' });
    const agent = await api('POST', '/api/office/agents', {
      workspace_id: ws.body.id, name: 'Sleeper', role: 'worker', cooldown_sec: 0, skip_idle_wakeups: false,
      // Long enough to be stopped from the page, never long enough to finish on its own in this test.
      executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '120000' }),
    });
    agentId = agent.body.id;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: DESKTOP_VIEWPORT });
    context.on('request', (request) => requested.push(request.url()));
    page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    pageErrors = recordPageErrors(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('signs in with a token, then after a reload is still signed in, with no token in any request URL and the event stream on the cookie', async () => {
    await page.goto(`${h.url}/office/runs`);
    await signInForm().waitFor();
    await page.screenshot({ path: join(SHOTS, 'signin.png') });
    await signInForm().getByLabel('API token').fill(TOKEN);
    await signInForm().getByRole('button', { name: 'Sign in' }).click();
    await liveIndicator().waitFor();
    await page.getByRole('heading', { name: 'Runs' }).waitFor();

    const [cookie, ...others] = await context.cookies();
    expect(others).toEqual([]);
    expect(cookie).toMatchObject({ name: 'office_session', httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(cookie!.value).not.toContain(TOKEN);
    const storage = await page.evaluate(() => {
      const { localStorage, sessionStorage, document } = globalThis as unknown as PageGlobals;
      return JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie });
    });
    expect(storage).not.toContain(TOKEN);
    expect(storage).not.toContain(cookie!.value);

    // A reload: no form, and the event stream opens again with nothing but the cookie.
    const streamAnswered = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/office/stream');
    await page.reload();
    expect((await streamAnswered).status()).toBe(200);
    await liveIndicator().waitFor();
    expect(await signInForm().count()).toBe(0);

    // The stream works: a run started elsewhere appears on the page without a reload.
    await api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'stream check' });
    await page.locator('table[aria-label="Runs"] tr[data-status="running"]').waitFor();

    const paths = requested.map((url) => new URL(url).pathname);
    expect(paths).toContain('/api/office/stream');
    expect(paths).toContain('/api/office/runs');
    for (const url of requested) {
      expect(url, url).not.toContain(TOKEN);
      expect(new URL(url).searchParams.has('token'), url).toBe(false);
    }
    expect(pageErrors).toEqual([]);
  });

  it('Stop on a running run asks first, then cancels the run through the API', async () => {
    const row = page.locator('table[aria-label="Runs"] tr[data-status="running"]');
    const runId = await row.getAttribute('data-run-id');
    await row.getByRole('button', { name: 'Stop' }).click();
    const dialog = page.getByRole('dialog', { name: 'Stop run' });
    await dialog.locator('input[name="reason"]').fill('wrong task');
    await dialog.screenshot({ path: join(SHOTS, 'stop-run-dialog.png') });
    await dialog.getByRole('button', { name: 'Stop run' }).click();
    await dialog.waitFor({ state: 'detached' });

    await page.locator(`tr[data-run-id="${runId}"][data-status="cancelled"]`).waitFor();
    const run = (await api('GET', `/api/office/runs/${runId}`)).body;
    expect(run.status).toBe('cancelled');
    const wakeup = (await api('GET', `/api/office/wakeups/${run.wakeup_id}`)).body;
    expect(wakeup).toMatchObject({ status: 'cancelled', cancel_reason: 'run_cancelled' });
    expect(await page.locator(`tr[data-run-id="${runId}"]`).getByRole('button', { name: 'Stop' }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('signing out returns to the form, and the old cookie no longer opens the API', async () => {
    const [cookie] = await context.cookies();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInForm().waitFor();
    expect(await context.cookies()).toEqual([]);
    const refused = await h.api('GET', '/api/office/runs', undefined, { cookie: `office_session=${cookie!.value}` });
    expect(refused.status).toBe(401);
    await page.reload();
    await signInForm().waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('a token from the previous dashboard (?token= in the page URL, or local storage) becomes a session and leaves both at once', async () => {
    const legacy = await browser.newContext();
    try {
      const fromUrl = await legacy.newPage();
      await fromUrl.goto(`${h.url}/office/runs?token=${TOKEN}`);
      await fromUrl.getByTestId('live-indicator').and(fromUrl.getByText('live')).waitFor({ timeout: UI_TIMEOUT });
      expect(fromUrl.url()).toBe(`${h.url}/office/runs`);
      expect((await legacy.cookies()).map((c) => c.name)).toEqual(['office_session']);
      await legacy.clearCookies();

      const fromStorage = await legacy.newPage();
      await fromStorage.addInitScript((token) => {
        const { localStorage, sessionStorage } = globalThis as unknown as PageGlobals;
        if (!sessionStorage.getItem('seeded')) localStorage.setItem('office-scheduler.api-token', token);
        sessionStorage.setItem('seeded', '1');
      }, TOKEN);
      await fromStorage.goto(`${h.url}/office/runs`);
      await fromStorage.getByTestId('live-indicator').and(fromStorage.getByText('live')).waitFor({ timeout: UI_TIMEOUT });
      expect(await fromStorage.evaluate(() => (globalThis as unknown as PageGlobals).localStorage.getItem('office-scheduler.api-token'))).toBeNull();
    } finally {
      await legacy.close();
    }
  });
});
