/**
 * Webhooks as real senders send them: the signature is checked over the raw bytes of the body
 * first, whatever the content type, and only then is the body decoded (JSON, GitHub's form-encoded
 * `payload`, or any other body as the text variable `body`).
 */
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { post, get } = apiClient(() => h);

/** GitHub's documented test vector (docs: "Validating webhook deliveries"). */
const GITHUB_SECRET = "It's a Secret to Everybody";
const GITHUB_BODY = 'Hello, World!';
const GITHUB_SIGNATURE = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

const sign = (secret: string, raw: string | Buffer) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

async function hmacTrigger(secret = GITHUB_SECRET): Promise<{ routineId: string; publicId: string }> {
  h = await startHarness();
  const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false });
  const routine = await post('/api/office/routines', {
    workspace_id: workspaceId, name: 'Hooked', assignee_agent_instance_id: agentId, concurrency_policy: 'always_enqueue',
    triggers: [{ kind: 'webhook', signing_mode: 'hmac_sha256', secret }],
  });
  return { routineId: routine.id, publicId: routine.triggers[0].public_id };
}

async function deliver(publicId: string, body: string | Buffer, headers: Record<string, string>) {
  const response = await fetch(`${h!.url}/api/routine-triggers/${publicId}/fire`, { method: 'POST', headers, body });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const routineRuns = (routineId: string): Promise<any[]> => get(`/api/office/routines/${routineId}/runs`);

describe('webhook deliveries are verified over the raw body, then decoded by content type', () => {
  it("GitHub's documented test vector is accepted as text/plain, and the text becomes the variable `body`", async () => {
    const { publicId } = await hmacTrigger();
    expect(sign(GITHUB_SECRET, GITHUB_BODY)).toBe(GITHUB_SIGNATURE);
    const res = await deliver(publicId, GITHUB_BODY, { 'content-type': 'text/plain', 'x-hub-signature-256': GITHUB_SIGNATURE });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.routine_run.trigger_payload).toMatchObject({ body: GITHUB_BODY });
  });

  it("GitHub's test vector sent as JSON (not valid JSON) passes the signature check and is then a 400, not a 401", async () => {
    const { routineId, publicId } = await hmacTrigger();
    const res = await deliver(publicId, GITHUB_BODY, { 'content-type': 'application/json', 'x-hub-signature-256': GITHUB_SIGNATURE });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(await routineRuns(routineId)).toEqual([]);
  });

  it('a wrong signature answers 401 whatever the body: invalid JSON, text, form, or an unknown type', async () => {
    const { routineId, publicId } = await hmacTrigger();
    const wrong = sign('not-the-secret', GITHUB_BODY);
    for (const [type, body] of [
      ['application/json', '{not json'],
      ['application/json', GITHUB_BODY],
      ['text/plain', GITHUB_BODY],
      ['application/x-www-form-urlencoded', 'payload=%7Bbroken'],
      ['application/octet-stream', 'binary'],
    ] as const) {
      const res = await deliver(publicId, body, { 'content-type': type, 'x-hub-signature-256': wrong });
      expect(res.status, `${type}: ${JSON.stringify(res.body)}`).toBe(401);
      expect(res.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
      const missing = await deliver(publicId, body, { 'content-type': type });
      expect(missing.status, `${type} unsigned`).toBe(401);
    }
    expect(await routineRuns(routineId)).toEqual([]);
  });

  it("a form-encoded body's `payload` field (GitHub's default content type) is parsed as JSON and gives its variables", async () => {
    const { publicId } = await hmacTrigger('form-secret');
    const form = new URLSearchParams({ payload: JSON.stringify({ ref: 'refs/heads/main', sender: 'octocat' }) }).toString();
    const res = await deliver(publicId, form, { 'content-type': 'application/x-www-form-urlencoded', 'x-hub-signature-256': sign('form-secret', form) });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.routine_run.trigger_payload).toMatchObject({ ref: 'refs/heads/main', sender: 'octocat' });
  });

  it('a JSON body signed over its bytes still gives its top-level fields as variables, with a charset parameter too', async () => {
    const { publicId } = await hmacTrigger('json-secret');
    const raw = JSON.stringify({ branch: 'release/2.0' });
    const res = await deliver(publicId, raw, { 'content-type': 'application/json; charset=utf-8', 'x-hub-signature-256': sign('json-secret', raw) });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.routine_run.trigger_payload).toMatchObject({ branch: 'release/2.0' });
  });

  it('a body with invalid UTF-8, signed over its raw bytes, is accepted', async () => {
    const { publicId } = await hmacTrigger('bytes-secret');
    const raw = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9, 0xff, 0xfe]), Buffer.from(' ok')]);
    const res = await deliver(publicId, raw, { 'content-type': 'application/octet-stream', 'x-hub-signature-256': sign('bytes-secret', raw) });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.routine_run.trigger_payload.body).toMatch(/^caf.* ok$/);
  });

  it('a webhook body over the size limit is still a 413 in the error envelope', async () => {
    const { publicId } = await hmacTrigger('big-secret');
    const raw = 'x'.repeat(1024 * 1024 + 10);
    const res = await deliver(publicId, raw, { 'content-type': 'text/plain', 'x-hub-signature-256': sign('big-secret', raw) });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });
});
