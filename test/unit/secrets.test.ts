/** Write-only secrets (domain/secrets.ts): the rules over any executor that carries `env` or `headers`, whatever its kind. */
import { describe, expect, it } from 'vitest';
import { SECRET_MASK, keepStoredSecrets, maskExecutor, maskExecutorFields } from '../../src/domain/secrets.js';

const MASK = SECRET_MASK;

describe('masking executors', () => {
  it('masks the values of env and headers of any executor kind, names kept, other fields untouched', () => {
    for (const kind of ['command', 'claude_code', 'codex', 'gemini_cli']) {
      expect(maskExecutor({ kind, model: 'm', env: { API_KEY: 'secret', BASE_URL: 'https://x' } }))
        .toEqual({ kind, model: 'm', env: { API_KEY: MASK, BASE_URL: MASK } });
    }
    expect(maskExecutor({ kind: 'http', url: 'https://a', headers: { authorization: 'Bearer t' } })).toEqual({ kind: 'http', url: 'https://a', headers: { authorization: MASK } });
    expect(maskExecutor({ kind: 'function', name: 'echo' })).toEqual({ kind: 'function', name: 'echo' });
    expect(maskExecutor(null)).toBeNull();
  });

  it('masks every executor field however deep, and leaves a record named env elsewhere alone', () => {
    const details = { agent: { executor: { kind: 'codex', env: { OPENAI_API_KEY: 'k' } } }, list: [{ default_executor: { kind: 'http', url: 'u', headers: { h: 'v' } } }], env: { keep: 'me' } };
    expect(maskExecutorFields(details)).toEqual({
      agent: { executor: { kind: 'codex', env: { OPENAI_API_KEY: MASK } } }, list: [{ default_executor: { kind: 'http', url: 'u', headers: { h: MASK } } }], env: { keep: 'me' },
    });
  });
});

describe('a PATCH of an executor', () => {
  const stored = { kind: 'claude_code', env: { ANTHROPIC_API_KEY: 'real', OLD: 'gone' } };

  it('replaces it whole, a masked value keeping the stored one of the same name', () => {
    expect(keepStoredSecrets({ kind: 'claude_code', model: 'opus', env: { ANTHROPIC_API_KEY: MASK, NEW: 'n' } }, stored))
      .toEqual({ executor: { kind: 'claude_code', model: 'opus', env: { ANTHROPIC_API_KEY: 'real', NEW: 'n' } } });
    expect(keepStoredSecrets({ kind: 'command', command: 'c' }, stored)).toEqual({ executor: { kind: 'command', command: 'c' } });
    expect(keepStoredSecrets(null, stored)).toEqual({ executor: null });
  });

  it('refuses a masked value with nothing stored under its name, or in another record', () => {
    expect(keepStoredSecrets({ kind: 'claude_code', env: { MISSING: MASK } }, stored)).toEqual({ unknown: { path: 'env.MISSING' } });
    expect(keepStoredSecrets({ kind: 'http', url: 'u', headers: { ANTHROPIC_API_KEY: MASK } }, stored)).toEqual({ unknown: { path: 'headers.ANTHROPIC_API_KEY' } });
    expect(keepStoredSecrets({ kind: 'command', command: 'c', env: { A: MASK } }, null)).toEqual({ unknown: { path: 'env.A' } });
  });
});
