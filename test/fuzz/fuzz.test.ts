/**
 * Fuzzing inside `npm test`: 500 random and malformed requests (FUZZ_RUNS to change, FUZZ_SEED to
 * replay) across every route of the real app, in-process and over real HTTP. Never a 5xx; a
 * rejected request changes nothing in the database; the server is still ready at the end.
 * The long run (10,000 requests) is `npm run test:fuzz`.
 */
import { describe, expect, it } from 'vitest';
import { runFuzz } from './fuzz.js';
import { routesOf } from './target.js';

describe('fuzzing the real app', () => {
  it('reads every route from the app, hidden ones included', () => {
    const routes = routesOf([
      '└── / (GET)',
      '    ├── healthz (GET, HEAD)',
      '    └── api/office/tasks (POST, GET)',
      '        └── /:id (GET, PATCH)',
      '            └── /move (POST)',
    ].join('\n'));
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /', 'GET /healthz', 'HEAD /healthz', 'POST /api/office/tasks', 'GET /api/office/tasks',
      'GET /api/office/tasks/:id', 'PATCH /api/office/tasks/:id', 'POST /api/office/tasks/:id/move',
    ]);
  });

  it('never answers 5xx, changes nothing when it refuses, and stays ready', async () => {
    const runs = Number(process.env.FUZZ_RUNS ?? 500);
    const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : undefined;
    const report = await runFuzz({ runs, seed });
    const summary = `seed ${report.seed} (replay: FUZZ_SEED=${report.seed} FUZZ_RUNS=${runs} npx vitest run test/fuzz)\n${JSON.stringify({ byStatus: report.byStatus, byBodyKind: report.byBodyKind, overHttp: report.overHttp })}`;
    expect(report.violations, summary).toEqual([]);
    expect(report.runs, summary).toBe(runs);
    expect(report.readyAtEnd).toBe(true);
    expect(report.routes).toBeGreaterThanOrEqual(45);
    expect(report.overHttp, summary).toBeGreaterThan(0);
  }, 120_000);
});
