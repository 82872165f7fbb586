/**
 * JSON bodies that would reach an object's prototype (`__proto__`, `constructor.prototype`) are
 * refused by the API's parser with a 400 in the error envelope, on every write route, and write
 * nothing: the test sends them as raw text, at the top level and inside the fields that take any
 * JSON object (a wake's `context`, a fire's `variables`), where no schema would catch them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';

const TABLES = ['workspaces', 'agent_instances', 'tasks', 'office_routines', 'office_routine_runs', 'agent_wakeup_requests', 'activity_log', 'event_outbox'];

const PROTO = '{"__proto__":{"polluted":true}}';
const CONSTRUCTOR = '{"constructor":{"prototype":{"polluted":true}}}';

describe('prototype-poisoning JSON bodies are a 400 that changes nothing', () => {
  let h: Harness;
  const ids = { ws: '', agent: '', task: '', routine: '' };
  const counts = async () => Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, await h.inspect.count(t)])));

  beforeAll(async () => {
    h = await startHarness();
    ids.ws = (await h.api('POST', '/api/office/workspaces', { name: 'Acme' })).body.id;
    ids.agent = (await h.api('POST', '/api/office/agents', { workspace_id: ids.ws, name: 'Worker', role: 'worker' })).body.id;
    ids.task = (await h.api('POST', '/api/office/tasks', { workspace_id: ids.ws, title: 'Unassigned' })).body.id;
    const routine = await h.api('POST', '/api/office/routines', {
      workspace_id: ids.ws, name: 'By hand', assignee_agent_instance_id: ids.agent, triggers: [{ kind: 'manual' }],
    });
    expect(routine.status, JSON.stringify(routine.body)).toBe(201);
    ids.routine = routine.body.id;
    await h.scheduler.events.idle();
    await h.waitFor(async () => (await counts()).event_outbox === 0, 'the seed events to be acknowledged');
  });
  afterAll(async () => h?.stop());

  const cases = (): [string, string, string][] => [
    ['POST', '/api/office/workspaces', `{"name":"Poisoned","__proto__":{"polluted":true}}`],
    ['POST', '/api/office/workspaces', `{"name":"Poisoned","constructor":{"prototype":{"polluted":true}}}`],
    ['PATCH', `/api/office/workspaces/${ids.ws}`, `{"name":"Renamed","__proto__":{"name":"Renamed"}}`],
    ['POST', '/api/office/tasks', `{"workspace_id":"${ids.ws}","title":"Poisoned","constructor":{"prototype":{"polluted":true}}}`],
    ['PATCH', `/api/office/tasks/${ids.task}`, `{"title":"Renamed","__proto__":{"title":"Renamed"}}`],
    ['POST', `/api/office/agents/${ids.agent}/wake`, `{"reason":"poisoned","context":${PROTO}}`],
    ['POST', `/api/office/agents/${ids.agent}/wake`, `{"reason":"poisoned","context":{"deep":[${CONSTRUCTOR}]}}`],
    ['POST', `/api/office/routines/${ids.routine}/fire`, `{"variables":${PROTO}}`],
    ['POST', `/api/office/routines/${ids.routine}/fire`, `{"variables":${CONSTRUCTOR}}`],
  ];

  it('each such body on a write route is a 400 validation_error in the envelope, and no row changes', async () => {
    for (const [method, path, body] of cases()) {
      const before = await counts();
      const res = await h.api(method, path, body);
      expect(res.status, `${method} ${path} ${body}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(Object.keys(res.body)).toEqual(['error']);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.message).toMatch(/__proto__|prototype/);
      expect(await counts(), `rows after ${method} ${path}`).toEqual(before);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await h.api('GET', `/api/office/workspaces/${ids.ws}`)).body.name).toBe('Acme');
    expect((await h.api('GET', `/api/office/tasks/${ids.task}`)).body.title).toBe('Unassigned');
  });

  it('a key named constructor with no prototype is ordinary data, and malformed JSON still says where it broke', async () => {
    const woken = await h.api('POST', `/api/office/agents/${ids.agent}/wake`, '{"reason":"fine","context":{"constructor":"a name"}}');
    expect(woken.status, JSON.stringify(woken.body)).toBe(202);
    expect(woken.body.wakeup.payload.context).toEqual({ constructor: 'a name' });
    const broken = await h.api('POST', '/api/office/workspaces', '{"name":');
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('validation_error');
    expect(broken.body.error.message).toMatch(/^invalid JSON body: /);
  });
});
