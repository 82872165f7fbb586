/**
 * An agent's environment is an allow-list (API.md, "Trust boundaries"): what passes of the
 * scheduler's environment, in which order the layers win, and that OFFICE_AGENT_ENV cannot name the
 * scheduler's own settings.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { agentEnvironment } from '../../src/domain/agentEnvironment.js';

const HOST = {
  PATH: '/usr/bin', HOME: '/home/office', LANG: 'C.UTF-8', LC_ALL: 'C', TZ: 'Europe/Warsaw', https_proxy: 'http://proxy:3128',
  ANTHROPIC_API_KEY: 'sk-ant', CODEX_HOME: '/srv/codex', GITHUB_TOKEN: 'ghp', AWS_SECRET_ACCESS_KEY: 'aws',
  OFFICE_API_TOKEN: 'the-admin-token', OFFICE_DATABASE_URL: 'postgres://office:secret@db/office', OFFICE_DB: './data/office.db',
};

describe('agentEnvironment', () => {
  it('passes the system, locale, proxy and program credential variables, and nothing else of the scheduler\'s', () => {
    expect(agentEnvironment({ host: HOST, extraNames: [] })).toEqual({
      PATH: '/usr/bin', HOME: '/home/office', LANG: 'C.UTF-8', LC_ALL: 'C', TZ: 'Europe/Warsaw', https_proxy: 'http://proxy:3128',
      ANTHROPIC_API_KEY: 'sk-ant', CODEX_HOME: '/srv/codex',
    });
  });

  it('passes the names OFFICE_AGENT_ENV lists, but never an OFFICE_* setting', () => {
    const env = agentEnvironment({ host: HOST, extraNames: ['GITHUB_TOKEN', 'OFFICE_API_TOKEN'] });
    expect(env.GITHUB_TOKEN).toBe('ghp');
    expect(env).not.toHaveProperty('OFFICE_API_TOKEN');
    expect(env).not.toHaveProperty('AWS_SECRET_ACCESS_KEY');
  });

  it('the executor\'s env wins over the host\'s, and the run variables over both', () => {
    const env = agentEnvironment({ host: HOST, extraNames: [], executorEnv: { ANTHROPIC_API_KEY: 'sk-other', OFFICE_RUN_ID: 'forged' }, runVariables: { OFFICE_RUN_ID: 'run_1' } });
    expect(env).toMatchObject({ ANTHROPIC_API_KEY: 'sk-other', OFFICE_RUN_ID: 'run_1' });
  });

  it('the trace context comes last, as TRACEPARENT and TRACESTATE where there is one; the host\'s own TRACEPARENT never passes', () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const host = { ...HOST, TRACEPARENT: '00-11111111111111111111111111111111-2222222222222222-01' };
    expect(agentEnvironment({ host, extraNames: [] })).not.toHaveProperty('TRACEPARENT');
    const env = agentEnvironment({ host, extraNames: [], executorEnv: { TRACEPARENT: 'forged' }, traceContext: { traceparent } });
    expect(env.TRACEPARENT).toBe(traceparent);
    expect(env).not.toHaveProperty('TRACESTATE');
    expect(agentEnvironment({ host, extraNames: [], traceContext: { traceparent, tracestate: 'vendor=1' } })).toMatchObject({ TRACEPARENT: traceparent, TRACESTATE: 'vendor=1' });
  });
});

describe('OFFICE_AGENT_ENV', () => {
  it('is a list of names, and one of the scheduler\'s own settings stops start-up with a message that says why', () => {
    expect(loadConfig({ OFFICE_AGENT_ENV: 'GITHUB_TOKEN, AWS_PROFILE' }).agentEnvNames).toEqual(['GITHUB_TOKEN', 'AWS_PROFILE']);
    expect(() => loadConfig({ OFFICE_AGENT_ENV: 'GITHUB_TOKEN,OFFICE_API_TOKEN' })).toThrow(/OFFICE_AGENT_ENV=.*OFFICE_\* settings never reach an agent/);
  });
});
