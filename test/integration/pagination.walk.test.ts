/**
 * Cursor pagination against the real server: a list of 2,500 rows walked page by page, following
 * the `next-cursor` header, yields every row once, in the list's order, while rows are inserted
 * during the walk (keyset pagination, never OFFSET); and a cursor that is not one is a 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';

const ROWS = 2500;
const PAGE = 300;

interface Page { status: number; items: Array<{ id: string | number; created_at?: string }>; next: string | null; link: string | null }

/** Sends `calls` at most `width` at a time: quick to seed, without opening thousands of sockets at once. */
async function inBatches(count: number, width: number, call: (i: number) => Promise<unknown>) {
  for (let start = 0; start < count; start += width) {
    await Promise.all(Array.from({ length: Math.min(width, count - start) }, (_, k) => call(start + k)));
  }
}

describe('walking a list of 2,500 rows by cursor', () => {
  let h: Harness;
  let ws = '';
  let budget = '';
  const taskIds: string[] = [];

  async function page(path: string): Promise<Page> {
    const res = await fetch(`${h.url}${path}`);
    const body = await res.json() as Page["items"];
    return { status: res.status, items: body, next: res.headers.get('next-cursor'), link: res.headers.get('link') };
  }

  /** Follows next-cursor from `first` to the last page; `between` runs after each page (inserts during the walk). */
  async function walk(first: string, between: (pageNo: number) => Promise<void> = async () => {}) {
    const seen: Array<string | number> = [];
    let path: string | null = first;
    for (let pageNo = 0; path; pageNo++) {
      if (pageNo > 2 * ROWS / PAGE) throw new Error(`the walk from ${first} did not end: a page repeats`);
      const got = await page(path);
      expect(got.status, JSON.stringify(got.items)).toBe(200);
      expect(got.items.length).toBeLessThanOrEqual(PAGE);
      seen.push(...got.items.map((item) => item.id));
      if (got.next) {
        // The Link header names the same list, its filters kept, with the cursor the header carries.
        const linked = new URL(got.link!.match(/^<([^>]+)>; rel="next"$/)![1]!, h.url);
        expect(linked.searchParams.get('cursor')).toBe(got.next);
        expect(linked.searchParams.get('workspace_id')).toBe(ws);
        path = `${linked.pathname}${linked.search}`;
      } else {
        expect(got.link).toBeNull();
        path = null;
      }
      await between(pageNo);
    }
    return seen;
  }

  beforeAll(async () => {
    h = await startHarness();
    ws = (await h.api('POST', '/api/office/workspaces', { name: 'Big' })).body.id;
    await inBatches(ROWS, 25, async (i) => {
      const res = await h.api('POST', '/api/office/tasks', { workspace_id: ws, title: `Task ${i}` });
      if (res.status !== 201) throw new Error(JSON.stringify(res.body));
      taskIds[i] = res.body.id;
    });
    const created = await h.api('POST', '/api/office/budgets', { scope: 'workspace', scope_id: ws, limit_usd: 1, period: 'daily', action_on_exceed: 'warn' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    budget = created.body.id;
    // Each change of the budget writes one activity entry, and nothing else.
    await inBatches(ROWS, 25, async (i) => {
      const res = await h.api('PATCH', `/api/office/budgets/${budget}`, { limit_usd: i + 2 });
      if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    });
  }, 240_000);
  afterAll(async () => h?.stop());

  it('tasks: every task once, newest first, while more are created during the walk', async () => {
    const insertedDuring: string[] = [];
    const seen = await walk(`/api/office/tasks?workspace_id=${ws}&limit=${PAGE}`, async (pageNo) => {
      if (pageNo % 2 !== 0) return;
      const res = await h.api('POST', '/api/office/tasks', { workspace_id: ws, title: `During ${pageNo}` });
      insertedDuring.push(res.body.id);
    });
    expect(new Set(seen).size, 'no task twice').toBe(seen.length);
    // Newer than the walk's first page, so behind its cursor: none of them is seen, and no older one is lost.
    expect([...seen].sort()).toEqual([...taskIds].sort());
    // A walk started afterwards sees those too, first, each once.
    const again = await walk(`/api/office/tasks?workspace_id=${ws}&limit=${PAGE}`);
    expect(again.length).toBe(ROWS + insertedDuring.length);
    expect(new Set(again).size).toBe(again.length);
    expect(again.slice(0, insertedDuring.length).sort()).toEqual([...insertedDuring].sort());
  });

  it('tasks come newest first across page boundaries (the order the cursor seeks by)', async () => {
    const times: number[] = [];
    let path: string | null = `/api/office/tasks?workspace_id=${ws}&limit=${PAGE}`;
    while (path) {
      const got = await page(path);
      times.push(...got.items.map((item) => Date.parse(item.created_at!)));
      path = got.next ? `/api/office/tasks?workspace_id=${ws}&limit=${PAGE}&cursor=${got.next}` : null;
    }
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeLessThanOrEqual(times[i - 1]!);
  });

  it('activity: every entry once, newest first, while entries are written during the walk', async () => {
    const expected = (await h.inspect.rows('activity_log', { workspace_id: ws })).map((row) => Number(row.id));
    expect(expected.length).toBeGreaterThanOrEqual(ROWS);
    let during = 0;
    const seen = await walk(`/api/office/activity?workspace_id=${ws}&limit=${PAGE}`, async () => {
      await h.api('PATCH', `/api/office/budgets/${budget}`, { limit_usd: 10_000 + during++ });
    });
    expect(new Set(seen).size, 'no entry twice').toBe(seen.length);
    expect([...seen].map(Number).sort((a, b) => a - b)).toEqual([...expected].sort((a, b) => a - b));
    for (let i = 1; i < seen.length; i++) expect(Number(seen[i])).toBeLessThan(Number(seen[i - 1]));
    expect(during).toBeGreaterThan(5);
  });

  it('the last page has no next-cursor; a list without limit answers its default page size', async () => {
    const all = await page(`/api/office/tasks?workspace_id=${ws}`);
    expect(all.items.length).toBe(200);
    expect(all.next).not.toBeNull();
    const small = await page(`/api/office/agents?workspace_id=${ws}`);
    expect(small.items).toEqual([]);
    expect(small.next).toBeNull();
  });

  it('a cursor that is not one of this list\'s is a 400 naming cursor', async () => {
    const { next: tasksCursor } = await page(`/api/office/tasks?workspace_id=${ws}&limit=5`);
    const activityCursor = (await page(`/api/office/activity?workspace_id=${ws}&limit=5`)).next!;
    const forged = Buffer.from(JSON.stringify(['tasks', { drop: 'table' }, 'x'])).toString('base64url');
    for (const cursor of ['garbage!', 'AAAA', forged, activityCursor, encodeURIComponent(`${tasksCursor}"`), 'x'.repeat(2000)]) {
      const res = await h.api('GET', `/api/office/tasks?workspace_id=${ws}&cursor=${cursor}`);
      expect(res.status, cursor).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(JSON.stringify(res.body.error)).toContain('cursor');
    }
    // The list's own cursor, as it came, is a page; the same bytes altered are refused with a message that says what to pass.
    expect((await h.api('GET', `/api/office/tasks?workspace_id=${ws}&cursor=${tasksCursor}`)).status).toBe(200);
    const altered = await h.api('GET', `/api/office/tasks?workspace_id=${ws}&cursor=${activityCursor}`);
    expect(altered.body.error.message).toMatch(/not a cursor of this list/);
    for (const limit of ['0', '1001', 'ten']) {
      expect((await h.api('GET', `/api/office/tasks?workspace_id=${ws}&limit=${limit}`)).status, limit).toBe(400);
    }
  });
});
